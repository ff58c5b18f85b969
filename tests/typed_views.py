"""A runtime check that a view matches its game's ``TypedDict`` (``games/<name>/views.py``)
exactly: every required key, no key the type does not name, and every value of the type it
declares, all the way down (lists, unions, None, nested ``TypedDict``\\ s, ``dict[str, X]``).

mypy checks the code that builds and reads views; this checks the views themselves, so that an
engine that adds or drops a key without updating its type fails the conformance playouts.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, NotRequired, Required, Union, get_args, get_origin, get_type_hints


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def mismatches(value: Any, tp: Any, path: str = "view") -> list[str]:
    """How ``value`` differs from type ``tp`` (empty: it matches)."""
    origin = get_origin(tp)
    if tp is Any:
        return []
    if origin in (NotRequired, Required):
        return mismatches(value, get_args(tp)[0], path)
    if tp is None or tp is type(None):
        return [] if value is None else [f"{path}: {value!r} is not None"]
    if origin in (Union, types.UnionType):
        options = [mismatches(value, option, path) for option in get_args(tp)]
        if any(not problems for problems in options):
            return []
        return [f"{path}: {value!r} is none of {tp}"]
    if _is_typeddict(tp):
        if not isinstance(value, Mapping):
            return [f"{path}: {type(value).__name__} is not a {tp.__name__}"]
        hints = get_type_hints(tp, include_extras=True)
        problems = [f"{path}: no key {key!r}" for key in sorted(tp.__required_keys__ - set(value))]
        problems += [f"{path}: unknown key {key!r}" for key in sorted(set(value) - set(hints))]
        for key, item in value.items():
            if key in hints:
                problems += mismatches(item, hints[key], f"{path}[{key!r}]")
        return problems
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__} is not a list"]
        (item,) = get_args(tp)
        return [p for i, entry in enumerate(value) for p in mismatches(entry, item, f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__} is not a dict"]
        key_type, item = get_args(tp)
        problems = []
        for key, entry in value.items():
            problems += mismatches(key, key_type, f"{path} key")
            problems += mismatches(entry, item, f"{path}[{key!r}]")
        return problems
    if tp is int:  # bool is an int to Python, not to a view's reader
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not an int"]
    if isinstance(tp, type):
        return [] if isinstance(value, tp) else [f"{path}: {value!r} is not a {tp.__name__}"]
    raise TypeError(f"{path}: cannot check type {tp!r}")


__all__ = ["mismatches"]
