"""Installing a game for a test, through the catalog alone (nothing in src changes): a package
folder named after the game, with a ``plugin.py``, is put on ``rummyhall.games.__path__`` (where
the catalog looks, :func:`rummyhall.catalog._discover`), and everything is undone afterwards
(the folder's modules forgotten, the catalog found again).

    with installed(tmp_path, "highcard", "from test_toy_game import PLUGIN"):
        assert "highcard" in catalog.names()

The plugin's code may live in the folder or anywhere importable (a test module): the catalog only
needs ``rummyhall.games.<name>.plugin`` to define ``PLUGIN``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import rummyhall.games
from rummyhall import catalog


@contextlib.contextmanager
def installed(where: Path, name: str, plugin: str, **modules: str) -> Iterator[Path]:
    """The game ``name`` in the catalog while the block runs: its folder under ``where`` holds
    ``plugin.py`` (the text ``plugin``) and the other ``modules`` (name -> text)."""
    folder = where / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(f'"""The {name} game (installed by a test)."""\n')
    for module, text in {**modules, "plugin": plugin}.items():
        (folder / f"{module}.py").write_text(text)
    before = list(rummyhall.games.__path__)
    rummyhall.games.__path__.append(str(where))
    catalog._discover.cache_clear()
    try:
        yield folder
    finally:
        rummyhall.games.__path__[:] = before
        prefix = f"{rummyhall.games.__name__}.{name}"
        for module in [m for m in sys.modules if m == prefix or m.startswith(prefix + ".")]:
            del sys.modules[module]
        catalog._discover.cache_clear()
