"""Whether the hot modules run compiled, and the switch that keeps them pure.

setup.py compiles :data:`COMPILED` with mypyc when the build can (docs/solver.md, "The compiled
build"): the meld solver's modules, and the rummy engine and bot with the modules they call at
every action. The compiled extension modules sit beside their ``.py`` sources, and an extension
module wins at import. The sources stay the reference: with ``RUMMYHALL_PURE=1`` in the
environment, this module installs a finder ahead of Python's own that loads these modules from
their ``.py`` files (the package ``rummyhall`` imports it before anything else). The tests run the
pure modules beside the compiled ones that way, in a subprocess, and bench/solver.py times both.

This module itself is never compiled.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

COMPILED: Final = (
    "rummyhall.melds.suits",
    "rummyhall.melds.solver",
    "rummyhall.melds.plans",
    "rummyhall.melds.hints",
    "rummyhall.games.rummy.engine",
    "rummyhall.games.rummy.bot",
    "rummyhall.games.protocol",
    "rummyhall.melds.kinds",
    "rummyhall.cards",
)
"""The modules setup.py compiles (its ``COMPILED`` lists their files)."""
PURE_SWITCH: Final = "RUMMYHALL_PURE"
"""The environment variable that, set to anything but ``0``, loads :data:`COMPILED` pure."""


if TYPE_CHECKING:
    # The alias re-exports it (mypy --strict), for the compiled modules to import from here.
    from mypy_extensions import mypyc_attr as mypyc_attr  # noqa: PLC0414
else:

    def mypyc_attr(*args: Any, **kwargs: Any) -> Any:
        """mypyc's class options (``allow_interpreted_subclasses``), which only mypyc reads,
        at compile time: it knows the name as mypy_extensions' through the import above.
        At run time the decorator does nothing, so that nothing needs mypy_extensions then."""
        return lambda decorated: decorated


def pure_requested() -> bool:
    """Whether the environment asks for the pure modules."""
    return os.environ.get(PURE_SWITCH, "") not in ("", "0")


class SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of :data:`COMPILED` as their ``.py`` sources, never as the extension
    modules beside them; every other module is left to the finders after it."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        name = fullname.rpartition(".")[2]
        for folder in path or ():
            source = os.path.join(folder, name + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None


def install() -> None:
    """Put :class:`SourceFinder` first if the environment asks for the pure modules (once)."""
    if pure_requested() and not any(isinstance(f, SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, SourceFinder())


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from an extension module (compiled) rather than source."""
    origin = getattr(module, "__file__", None) or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled() -> bool:
    """Whether this process runs every module of :data:`COMPILED` compiled."""
    return all(is_compiled(importlib.import_module(name)) for name in COMPILED)


install()
