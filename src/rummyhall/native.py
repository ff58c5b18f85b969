"""Whether the hot modules run compiled, and the switch that keeps them pure.

setup.py compiles the modules :func:`modules` names with mypyc when the build can (docs/solver.md,
"The compiled build"): :data:`CORE`, the meld solver's and what every game calls at every action,
and the modules each folder of ``games/`` names in its ``__init__.py`` as ``COMPILED`` (a game is a
plug-in: the core lists none of its modules, and adding a game's folder adds what it compiles). The
compiled extension modules sit beside their ``.py`` sources, and an extension module wins at
import. The sources stay the reference: with ``RUMMYHALL_PURE=1`` in the environment,
:func:`install` (which the package ``rummyhall`` calls before anything else) puts a finder ahead
of Python's own that loads these modules from their ``.py`` files. The tests run the pure modules
beside the compiled ones that way, in a subprocess, and bench/solver.py times both.

This module imports nothing of the project, so that setup.py (and the Makefile) can run it as a
file, before anything is installed: ``python src/rummyhall/native.py`` prints the sources to
compile. It is never compiled itself.
"""

from __future__ import annotations

import ast
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

CORE: Final = (
    "rummyhall.cards",
    "rummyhall.games.protocol",
    "rummyhall.melds.kinds",
    "rummyhall.melds.suits",
    "rummyhall.melds.solver",
    "rummyhall.melds.plans",
    "rummyhall.melds.hints",
)
"""The modules below the games that setup.py compiles."""
MARK: Final = "COMPILED"
"""The name a folder of ``games/`` gives, in its ``__init__.py``, to the tuple of its modules
that the build compiles (``COMPILED = ("engine",)``): a literal, read without importing."""
PURE_SWITCH: Final = "RUMMYHALL_PURE"
"""The environment variable that, set to anything but ``0``, loads :func:`modules` pure."""
PACKAGE: Final = Path(__file__).resolve().parent
"""The folder of the package ``rummyhall``."""


if TYPE_CHECKING:
    # The alias re-exports it (mypy --strict), for the compiled modules to import from here.
    from mypy_extensions import mypyc_attr as mypyc_attr  # noqa: PLC0414
else:

    def mypyc_attr(*args: Any, **kwargs: Any) -> Any:
        """mypyc's class options (``allow_interpreted_subclasses``), which only mypyc reads,
        at compile time: it knows the name as mypy_extensions' through the import above.
        At run time the decorator does nothing, so that nothing needs mypy_extensions then."""
        return lambda decorated: decorated


def folder_modules(init: Path) -> tuple[str, ...]:
    """The modules a folder's ``__init__.py`` names as :data:`MARK`, by their stems: a tuple of
    strings, each the stem of a ``.py`` beside it. Anything else is an error, said at the build."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        target: ast.expr
        value: ast.expr | None
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if not (isinstance(target, ast.Name) and target.id == MARK):
            continue
        stems = ast.literal_eval(value) if value is not None else None
        if not (isinstance(stems, tuple) and all(isinstance(stem, str) for stem in stems)):
            raise ValueError(f"{init}: {MARK} must be a tuple of module names")
        missing = [stem for stem in stems if not (init.parent / f"{stem}.py").is_file()]
        if missing:
            raise ValueError(f"{init}: {MARK} names no such module: {', '.join(missing)}")
        return tuple(stems)
    return ()


@functools.cache
def modules(package: Path = PACKAGE) -> tuple[str, ...]:
    """Every module the build compiles: :data:`CORE`, then each folder of ``games/`` in the
    order of its name, with the modules it names."""
    found = list(CORE)
    for init in sorted((package / "games").glob("*/__init__.py")):
        found += [f"rummyhall.games.{init.parent.name}.{stem}" for stem in folder_modules(init)]
    return tuple(found)


def sources(package: Path = PACKAGE) -> list[Path]:
    """The ``.py`` files of :func:`modules`."""
    root = package.parent
    return [root.joinpath(*name.split(".")).with_suffix(".py") for name in modules(package)]


def pure_requested() -> bool:
    """Whether the environment asks for the pure modules."""
    return os.environ.get(PURE_SWITCH, "") not in ("", "0")


class SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of :func:`modules` as their ``.py`` sources, never as the extension
    modules beside them; every other module is left to the finders after it."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("rummyhall.") or fullname not in modules():
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
    """Whether this process runs every module of :func:`modules` compiled."""
    return all(is_compiled(importlib.import_module(name)) for name in modules())


if __name__ == "__main__":
    # setup.py and the Makefile: the sources to compile, relative to the project's folder.
    print(*(path.relative_to(PACKAGE.parents[1]).as_posix() for path in sources()))
