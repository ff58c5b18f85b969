"""Every game of the catalog is complete (issue 16): it has a bot, rooms (at least one practice room
and one for real chips), a terminal table, a tally for the simulator, a text renderer, a web view
module (``web/js/games/<name>.js``; that the browser loads it is tested in tests/browser), golden
records (``tests/golden/<name>-*.json``) and its own conformance slice
(tests/games/test_conformance.py, which also runs every game of the catalog at its rooms'
tables). A new game folder that misses one of them fails here, by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_conformance

import rummyhall
from rummyhall import catalog
from rummyhall.economy.ledger import CHIPS, PRACTICE
from rummyhall.games.text import GameText
from rummyhall.sim import Tally

WEB = Path(rummyhall.__file__).resolve().parent / "web"
GOLDEN = Path(__file__).parents[1] / "golden"


@pytest.mark.parametrize("name", catalog.names())
def test_every_game_is_complete(name: str) -> None:
    plugin = catalog.get(name)
    view = plugin.engine.create({"seats": 2}).view(1)
    assert callable(plugin.bot(1).act) and plugin.bot(1).act(view) is None  # not dealt yet
    currencies = {room.currency for room in plugin.rooms}
    assert {CHIPS.key, PRACTICE.key} <= currencies, f"{name}: a practice and a real-chips room"
    assert callable(plugin.play_entry())
    tally = plugin.tally_class()
    assert issubclass(tally, Tally) and tally is not Tally
    assert tally.setup is not Tally.setup, f"{name}'s tally sets up no simulation"
    renderer = plugin.renderer()
    assert isinstance(renderer, GameText) and type(renderer) is not GameText
    assert (WEB / plugin.web_view).is_file(), f"{name}: no web view at {plugin.web_view}"
    golden = sorted(GOLDEN.glob(f"{name}-*.json"))
    assert golden, f"{name}: no golden record tests/golden/{name}-*.json"
    for path in golden:
        assert json.loads(path.read_text(encoding="utf-8"))["game"] == name, path.name
    assert name in test_conformance.SLICES, f"{name} has no conformance slice"
    assert name in test_conformance.NOISE, f"{name} has no noise of its own for conformance"


def test_the_checks_walk_the_whole_catalog() -> None:
    assert catalog.names() == [plugin.name for plugin in catalog.games()]
    assert catalog.names(), "no game"
    every = {path.name.split("-")[0] for path in GOLDEN.glob("*.json")}
    assert every <= set(catalog.names()), f"golden records of no game: {every}"
