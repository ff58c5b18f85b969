"""Build of Rummy Hall: everything is in pyproject.toml, except the hot modules (the meld
solver's, what every action calls, and the modules each game's folder names: rummyhall/native.py
lists them), which are compiled with mypyc (it comes with mypy) when the build can
(docs/solver.md, "The compiled build"). Wherever it cannot, because mypyc, a C compiler or
Python's headers are missing or the compile fails, the install goes on with the same modules as
pure Python, which stay the reference; ``RUMMYHALL_PURE_BUILD=1`` asks for a pure install
outright."""

from __future__ import annotations

import os
import runpy
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The modules to compile: rummyhall/native.py's, the core's and those each game's folder names.
# It is run as a file (it imports nothing of the project, which is not installed yet).
HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = runpy.run_path(os.path.join(HERE, "src", "rummyhall", "native.py"))
COMPILED = [os.path.relpath(path) for path in NATIVE["sources"]()]
GROUP = "rummyhall_native"
"""The name of the shared library mypyc puts the compiled modules in."""


def _say(message: str) -> None:
    print(f"rummyhall build: {message}", file=sys.stderr)


def compiled_extensions() -> list[Any]:
    if os.environ.get("RUMMYHALL_PURE_BUILD", "") not in ("", "0"):
        _say("RUMMYHALL_PURE_BUILD is set: the compiled modules install as pure Python")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not available: the compiled modules install as pure Python")
        return []
    # mypy follows every import of the compiled modules, the protocol's too (its replay finds a
    # game through the catalog, which reaches the store and SQLAlchemy): in the build's isolated
    # environment, without the project's dependencies, the modules mypyc does not compile are
    # read silently, or a fresh install would fail to check them and fall back to pure Python.
    options = ["--follow-imports=silent"]
    try:
        return list(mypycify([*options, *COMPILED], opt_level="3", group_name=GROUP))
    except (Exception, SystemExit) as error:  # mypy reports type errors by exiting
        _say(f"mypyc could not translate the modules ({error!r}): they install as pure Python")
        return []


class OptionalBuildExt(build_ext):
    """Builds the compiled modules, or none of them: a failure (no compiler, no Python.h) leaves
    the pure modules, which is the same program, only slower."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            for path in self.get_outputs():
                if os.path.exists(path):
                    os.remove(path)
            _say(f"compiling the modules failed ({error!r}): they install as pure Python")


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": OptionalBuildExt})
