"""Rummy Patti's events match their types (``games/patti/events.py``, :data:`PATTI_EVENTS`).

The conformance playouts (tests/games/test_conformance.py) check every event they see against
the type the engine declares for its kind; here, the check itself: that the engine declares
exactly the kinds it emits, that the golden records' games emit events of those types, and that
the playouts fail when the engine adds, drops or retypes a key, or emits a kind it does not
declare, without changing its types.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance import run_conformance
from rummyhall.games.patti import engine as patti_engine
from rummyhall.games.patti.bot import PattiBot
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.events import PATTI_EVENTS
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.protocol import Deal, Event
from typed_views import mismatches

GOLDEN = Path(__file__).parents[1] / "golden"


def _emitted_kinds() -> set[str]:
    """The kinds the engine's source builds events of: the first argument of every ``Event(...)``
    call in games/patti/engine.py (all of them are written out as text)."""
    # (the source beside the module: compiled, its file is the extension module)
    assert patti_engine.__file__ is not None
    tree = ast.parse(Path(patti_engine.__file__).with_name("engine.py").read_text())
    kinds = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Event":
            first = node.args[0]
            assert isinstance(first, ast.Constant), ast.unparse(node)
            kinds.add(first.value)
    return kinds


def test_the_engine_declares_exactly_the_kinds_it_emits() -> None:
    assert Patti.event_types is PATTI_EVENTS
    assert _emitted_kinds() == set(PATTI_EVENTS)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("patti-*.json")), ids=lambda p: p.stem)
def test_the_golden_games_events_match(path: Path) -> None:
    record = json.loads(path.read_text())
    game = Patti.create(record["config"])
    kinds = set()
    for entry in record["actions"]:
        deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
        for event in game.apply(entry["seat"], entry["action"], entry["at"], deal=deal):
            kinds.add(event.kind)
            assert mismatches(dict(event.data), PATTI_EVENTS[event.kind], event.kind) == []
    assert {"deal", "hand", "turn", "game_over"} <= kinds


def _changed(change: Callable[[Event], list[Event]]) -> type[Patti]:
    """A Patti engine whose every event goes through ``change`` (which may add events), its
    types left as they are."""

    class Changed(Patti):
        def _apply(self, seat: int, action: str, deal: Deal | None, at: int) -> list[Event]:
            events = super()._apply(seat, action, deal, at)
            return [changed for event in events for changed in change(event)]

    return Changed


def _data(kind: str, edit: Callable[[dict[str, Any]], object]) -> Callable[[Event], list[Event]]:
    """A change that edits a copy of the data of the events of ``kind``."""

    def change(event: Event) -> list[Event]:
        if event.kind != kind:
            return [event]
        data = json.loads(json.dumps(event.data))
        edit(data)
        return [dataclasses.replace(event, data=data)]

    return change


def _extra(event: Event) -> list[Event]:
    """Every turn comes with an event of a kind the engine does not declare."""
    return [event, Event("peek", {"seat": 1})] if event.kind == "turn" else [event]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (_data("turn", lambda data: data.update(extra=1)), "event turn: unknown key 'extra'"),
        (_data("deal", lambda data: data.pop("open")), "event deal: no key 'open'"),
        (_data("hand", lambda data: data.update(cards="AS KS QS")), "is not a list"),
        (
            _data("game_over", lambda data: data["postings"][0].update(seat=1)),
            "event game_over['postings'][0]: unknown key 'seat'",
        ),
        (_extra, "event 'peek' has no declared type"),
    ],
)
def test_an_event_that_changes_without_its_type_fails(
    change: Callable[[Event], list[Event]], problem: str
) -> None:
    changed = _changed(change)
    with pytest.raises(AssertionError, match=re.escape(problem)):
        run_conformance(
            lambda seed: changed(PattiConfig(seats=4)),
            lambda seat, seed: PattiBot(seed=seat),
            range(1),
        )


def test_the_unchanged_engine_passes() -> None:
    """The same playout as above, with the engine as it is: every event checked."""
    report = run_conformance(
        lambda seed: Patti(PattiConfig(seats=4)),
        lambda seat, seed: PattiBot(seed=seat),
        range(1),
    )
    # report.events also counts variants (``pack:chips``...) beside the kinds: not events.
    checked = sum(count for kind, count in report.events.items() if ":" not in kind)
    assert report.typed_events == checked > 0
