"""A table tells one change to many seats, making what their messages share once
(rummyhall.server.table._Parts): the info and each event's JSON. Every seat must still get
exactly the events it may see, and nothing of another seat's: this plays every game and
compares, after every action, each seat's message made as a broadcast makes it with one made
from that seat's own events and view."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from rummyhall import catalog, sim
from rummyhall.games.protocol import Deal, Event
from rummyhall.server.table import _encode, _event_json, _Parts

OPTIONS = orjson.OPT_NON_STR_KEYS


class Told(sim.Runner):
    """A runner that, after every action, tells it to every seat and the spectators as a table
    does, and checks each message against that seat's own view."""

    told = 0

    def apply(self, seat: int, action: str, at: int, deal: Deal | None = None) -> list[Event]:
        events = super().apply(seat, action, at, deal)
        game = self.game
        parts = _Parts({"seats": list(range(game.seats))}, events)
        for viewer in [*range(1, game.seats + 1), None]:
            # As _broadcast does: the seat's message is made (and its shared parts encoded)
            # before the next seat's view is asked for.
            sent = _encode({"events": parts.events(viewer), "view": game.view(viewer)})
            own = orjson.dumps(
                {
                    "events": [_event_json(e) for e in events if e.visible_to(viewer)],
                    "view": game.view(viewer),
                },
                option=OPTIONS,
            )
            assert orjson.loads(sent) == orjson.loads(own), (viewer, action)
            Told.told += 1
        return events


@pytest.mark.parametrize("game", sorted(catalog.names()))
def test_every_seat_is_told_its_own_view(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim, "Runner", Told)
    Told.told = 0
    deals = 12 if game == "patti" else 3
    report: Any = sim.simulate(game=game, players=4, deals=deals, seed=5, checks=False)
    assert report.violation_count == 0
    assert Told.told > 100


def test_keys_that_are_not_text_are_written_as_text() -> None:
    """A message is encoded without orjson's option for keys that are not text (it costs a
    third of the encoding), and with it when a key is not text: the same JSON either way."""
    plain = {"seats": {"1": {"cards": ["AS"]}}, "pot": 20}
    numbered = {"seats": {1: {"cards": ["AS"]}}, "pot": 20}
    assert _encode(plain) == _encode(numbered) == orjson.dumps(numbered, option=OPTIONS)
    assert orjson.loads(_encode(numbered)) == plain
