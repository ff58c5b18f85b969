"""Benchmark of what a table spends telling one change to its watchers, without the sends: every
seat's message (its view, its legal actions, the events it may see, the table's info) built and
encoded as :meth:`rummyhall.server.table.TableActor._broadcast` does, for 4 players and a
spectator.

    python bench/broadcast.py [--deals 40] [--parts]

The changes are those of real games: bots play ``--deals`` deals of each game (the project's
simulation, seed 1), and each way below tells every change twice, each time on a copy of the
game of its own (whatever an engine remembers of a state is then as a live table finds it after
each action), once first and once after the other way. Printed: the mean time per change and
the messages' mean size.

The baseline is measured in the same run on the same changes: each watcher's message built from
its whole view and encoded on its own (``orjson``), sharing nothing between the watchers, as a
plain server would. The room's own way makes the table's info and each event's JSON once per
change (``server.table._Parts``); its ratio to the baseline says what the room's way saves or
costs. (The way before it, which encoded what several messages share once and put the encoded
parts into each message as ``orjson.Fragment`` s, printed ratios of 1.01 to 1.26 here, against
0.94 to 1.28 for this one, in runs alternating between the two on the same machine: the same,
within what this machine's runs vary by.)

``--parts`` then prints where a change's time goes, each part timed alone over the same changes
for the five watchers: their views (``Game.views``, which builds the state's shared part once),
their legal actions, the events each may see, the encoding of their whole messages, and the
encoding of the same messages without the info and the view (what a protocol that sent only the
events and the legal actions would encode). It says what such a protocol could save, and what a
protocol that kept the views could not.
"""

from __future__ import annotations

import argparse
import copy
import gc
import time
from collections.abc import Sequence
from typing import Any, ClassVar

from rummyhall import sim
from rummyhall.games.protocol import Deal, Event, Game
from rummyhall.server.table import TableActor, _event_json
from rummyhall.store.bulk import json_bytes

WATCHERS = (1, 2, 3, 4, None)
"""Account ids of the watchers: four players in seats 1-4 (account n in seat n) and a spectator."""

INFO = {
    "id": 7, "room": "bench", "game": "", "title": "bench", "stake": 10, "currency": "chips",
    "private": False, "pot": 40, "game_no": 3, "playing": True, "fair": {"hash": "ab" * 32},
    "seats": [
        {"seat": s, "name": f"player-{s}", "bot": False, "stack": 1000, "leaving": False,
         "away": False, "auto_rebuy": True}
        for s in range(1, 5)
    ],
}  # fmt: skip


class _Watcher:
    def __init__(self, account_id: int | None) -> None:
        self.account_id = account_id
        self.sent = 0

    def send(self, text: str | bytes) -> None:
        self.sent += len(text)


class _Clock:
    def now(self) -> int:
        return 1_000_000


class _Metrics:
    def sent(self, count: int) -> None:
        pass


def room_table(game: Game) -> tuple[TableActor, list[_Watcher]]:
    """A table actor holding ``game``, with only what its broadcast reads."""
    actor = TableActor.__new__(TableActor)
    watchers = [_Watcher(account) for account in WATCHERS]
    actor.game = game
    actor.id = 7
    actor.seq = 42
    actor.clock = _Clock()  # type: ignore[assignment]
    actor.metrics = _Metrics()  # type: ignore[assignment]
    actor.watchers = watchers  # type: ignore[assignment]
    actor.seat_of = lambda account: account  # type: ignore[method-assign,assignment,return-value]
    actor.info = lambda: INFO  # type: ignore[method-assign]
    return actor, watchers


def _player(game: Game, seat: int | None) -> int | None:
    return seat if seat is not None and seat <= game.seats else None


def _messages(game: Game, events: Sequence[Event]) -> list[dict[str, Any]]:
    """Every watcher's message, from its whole view (the game's views of the change, built
    together as the room has them built)."""
    players = [_player(game, seat) for seat in WATCHERS]
    return [
        {
            "type": "update", "table": 7, "seq": 42, "step": len(game.log), "you": seat,
            "now": 1_000_000, "info": INFO,
            "events": [_event_json(e) for e in events if e.visible_to(player)],
            "view": view,
            "legal": game.legal(player) if player is not None else [],
        }
        for seat, player, view in zip(WATCHERS, players, game.views(players), strict=True)
    ]  # fmt: skip


def plain(game: Game, events: Sequence[Event]) -> int:
    """The baseline: every watcher's whole message encoded on its own. Returns the bytes."""
    return sum(len(json_bytes(message)) for message in _messages(game, events))


class Recorded(sim.Runner):
    """A simulation runner that keeps, for each action, five copies of the game just after it
    (each way below is timed twice, on copies of its own, and ``--parts`` has the fifth) and its
    events."""

    changes: ClassVar[list[tuple[list[Game], list[Event]]]] = []

    def apply(self, seat: int, action: str, at: int, deal: Deal | None = None) -> list[Event]:
        before = [copy.deepcopy(self.game) for _ in range(5)]
        events = super().apply(seat, action, at, deal)
        for game in before:
            game.apply(seat, action, at, deal=deal)
        Recorded.changes.append((before, events))
        return events


def timed(way: str, copy_no: int) -> tuple[float, int]:
    """Seconds spent telling every recorded change ``way`` on copy ``copy_no``, and the bytes."""
    spent, size = 0.0, 0
    for games, events in Recorded.changes:
        game = games[copy_no]
        if way == "room":
            actor, watchers = room_table(game)
            started = time.perf_counter()
            actor._broadcast(events)
            spent += time.perf_counter() - started
            size += sum(w.sent for w in watchers)
        else:
            started = time.perf_counter()
            size += plain(game, events)
            spent += time.perf_counter() - started
    return spent, size


def parts() -> dict[str, float]:
    """Microseconds per change of each part of telling it to the watchers (see the module's
    docstring), each part timed alone on a copy of the games of its own."""
    changes = Recorded.changes
    messages = [_messages(games[3], events) for games, events in changes]
    lean = [
        [{k: v for k, v in m.items() if k not in ("info", "view")} for m in ms] for ms in messages
    ]

    def each(work: Any, copy_no: int) -> float:
        started = time.perf_counter()
        for number, (games, events) in enumerate(changes):
            work(number, games[copy_no], events)
        return (time.perf_counter() - started) / len(changes) * 1e6

    def views(_: int, game: Game, __: Sequence[Event]) -> None:
        game.views([_player(game, seat) for seat in WATCHERS])

    def legal(_: int, game: Game, __: Sequence[Event]) -> None:
        for seat in WATCHERS:
            if seat is not None and seat <= game.seats:
                game.legal(seat)

    def seen(_: int, __: Game, events: Sequence[Event]) -> None:
        encoded = [(event, _event_json(event)) for event in events]
        for seat in WATCHERS:
            [data for event, data in encoded if event.visible_to(seat)]

    def encode(number: int, _: Game, __: Sequence[Event]) -> None:
        for message in messages[number]:
            json_bytes(message)

    def encode_lean(number: int, _: Game, __: Sequence[Event]) -> None:
        for message in lean[number]:
            json_bytes(message)

    return {
        "views": each(views, 4),
        "legal actions": each(legal, 4),
        "events": each(seen, 1),
        "encoding": each(encode, 1),
        "encoding without info and view": each(encode_lean, 1),
    }


def main(deals: int, show_parts: bool) -> None:
    sim.Runner = Recorded  # type: ignore[misc]
    print("telling one change to 4 seats and a spectator, no sends")
    for name in ("patti", "indian13"):
        Recorded.changes = []
        report: Any = sim.simulate(game=name, players=4, deals=deals, seed=1, checks=False)
        assert report.violation_count == 0
        # No cycle collection inside the timings: the copies made above would make it walk
        # hundreds of thousands of objects, in whichever way it happened to fall.
        gc.collect()
        gc.disable()
        try:
            # Each way first once and second once: the second finds code and data warm.
            room1, room_bytes = timed("room", 0)
            base1, base_bytes = timed("plain", 1)
            base2, _ = timed("plain", 2)
            room2, _ = timed("room", 3)
            split = parts() if show_parts else {}
        finally:
            gc.enable()
        room, base = room1 + room2, base1 + base2
        n = 2 * len(Recorded.changes)
        print(
            f"  {name:<9} {n // 2:>6} changes: room {room / n * 1e6:6.1f} us, "
            f"plain {base / n * 1e6:6.1f} us per change (ratio {room / base:.2f}); "
            f"{room_bytes / (n // 2) / len(WATCHERS):,.0f} bytes a message "
            f"(plain {base_bytes / (n // 2) / len(WATCHERS):,.0f})"
        )
        if split:
            print("    " + "; ".join(f"{part} {us:.1f} us" for part, us in split.items()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--parts", action="store_true", help="where a change's time goes")
    arguments = parser.parse_args()
    main(arguments.deals, arguments.parts)
