"""The conformance suite every game engine passes (DESIGN.md, "Tests and measurements").

:func:`run_conformance` plays seeded games of one engine with its bots, stirred with noise:

* the house deals provably-fair decks (:class:`rummyhall.sim.FairHouse`) and refills the stock;
* an awaited seat usually lets its bot act, sometimes plays a random concrete action from
  ``legal(seat)`` instead (which must be accepted), sometimes waits for the server's ``timeout``;
* between actions, attempts that must be refused (garbage, unknown seats, time going backwards,
  actions no ``legal()`` lists, early timeouts, the house dealing out of turn, plus the game's own
  from ``extra_noise``) must raise :class:`GameError` and leave every view, the awaited seats, the
  log and the result exactly as they were;
* now and then a random concrete action from ``legal(seat)`` is tried on a copy of the game: it
  must be accepted (``legal`` never lists what ``apply`` refuses);
* after every accepted action, every invariant of :mod:`rummyhall.games.invariants` holds and every
  view is JSON; every view of every seat, the house and the spectators matches the game's view
  type (its engine's ``view_type``, a ``TypedDict``) exactly, and every event the data type its
  engine declares for its kind (``event_types``) (tests/typed_views.py);
* at the end, ``replay`` of the JSON record rebuilds every seat's view, the awaited seats and the
  result, and so does a replay cut at a few points sampled during the game.

A failure raises AssertionError naming the seed and the action.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rummyhall.bots import Bot
from rummyhall.cards import shoe
from rummyhall.games.invariants import Invariants, ViewShape, viewers
from rummyhall.games.protocol import HOUSE, Deal, Event, Game, GameError, notation, replay
from rummyhall.sim import FairHouse
from typed_views import mismatches

Expect = bool | None
"""For a noise attempt: True, it must be accepted; False, refused; None, either."""
Attempt = tuple[int, str, Expect]
"""(seat, action, expectation)."""
ExtraNoise = Callable[[Game, random.Random], Sequence[Attempt]]


@dataclass
class ConformanceReport:
    """What the suite did, for coverage assertions."""

    games: int = 0
    actions: int = 0
    refused: int = 0
    """Attempts that had to be refused, and were (state unchanged)."""
    noise_accepted: int = 0
    random_moves: int = 0
    timeouts: int = 0
    probes: int = 0
    """Concrete legal actions tried on a copy of the game."""
    replays: int = 0
    typed_views: int = 0
    """States whose every view was checked against the game's view type."""
    typed_events: int = 0
    """Events checked against the type their game declares for their kind."""
    events: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    """Error codes of the refused attempts."""

    def count(self, events: Iterable[Event]) -> None:
        for event in events:
            kind, data = event.kind, event.data
            self.events[kind] += 1
            # The variants that matter for coverage: how a declaration was judged (rummy), why a
            # player packed, what a timeout did and how a game ended (patti).
            if kind == "declaration":
                self.events["declaration:" + ("valid" if data.get("valid") else "wrong")] += 1
            elif kind == "pack":
                self.events[f"pack:{data.get('why')}"] += 1
            elif kind == "timeout" and "then" in data:
                self.events[f"timeout:{data['then']}"] += 1
            elif kind == "game_over" and "how" in data.get("detail", {}):
                self.events[f"game_over:{data['detail']['how']}"] += 1


def state(game: Game) -> tuple[Any, ...]:
    """Everything a refused action must leave alone."""
    views = {viewer: game.view(viewer) for viewer in viewers(game)}
    return (views, game.awaited(), len(game.log), game.result, game.clock)


def _is_listed(action: str, legal: Sequence[str]) -> bool:
    """Whether ``legal`` lists ``action``, literally or through a template (``show <groups>``)."""
    if action in legal:
        return True
    return any("<" in entry and action.startswith(entry.split("<", 1)[0]) for entry in legal)


class _Play:
    """One seeded game under the suite."""

    def __init__(
        self,
        seed: int,
        game: Game,
        bots: dict[int, Bot],
        house: FairHouse,
        report: ConformanceReport,
        *,
        noise: float,
        timeouts: float,
        random_moves: float,
        probes: float,
        extra_noise: ExtraNoise | None,
        shape: ViewShape | None,
        view_type: Any = None,
    ) -> None:
        self.seed = seed
        self.view_type = type(game).view_type if view_type is None else view_type
        self.event_types = type(game).event_types
        self.rng = random.Random(seed)
        self.game = game
        self.bots = bots
        self.house = house
        self.report = report
        self.noise = noise
        self.timeouts = timeouts
        self.random_moves = random_moves
        self.probes = probes
        self.extra_noise = extra_noise
        self.invariants = Invariants(game, shoe(*game.shoe()), shape)
        self.at = 0
        self.snapshots: list[tuple[int, tuple[Any, ...]]] = []

    def crash(self, seat: int, action: str, at: int, exc: Exception) -> AssertionError:
        """An error that is not a GameError: the engine broke instead of refusing."""
        return self.fail(f"p{seat} {action} @{at} raised {type(exc).__name__}: {exc}")

    def fail(self, message: str) -> AssertionError:
        last = notation(self.game.log[-1]) if self.game.log else "(none)"
        return AssertionError(
            f"seed {self.seed}, after action {len(self.game.log)} ({last}): {message}"
        )

    # --- accepted actions ---------------------------------------------------------------

    def apply(self, seat: int, action: str, at: int, deal: Deal | None = None) -> list[Event]:
        try:
            events = self.game.apply(seat, action, at, deal=deal)
        except GameError as exc:
            raise self.fail(f"p{seat} {action} @{at} refused: {exc.code}: {exc}") from exc
        except Exception as exc:
            raise self.crash(seat, action, at, exc) from exc
        self.at = at
        self.report.actions += 1
        self.report.count(events)
        problems = self.invariants.check(events) + self.typed_events(events) + self.typed_views()
        problems += self.views_agree()
        if problems:
            raise self.fail("; ".join(problems[:5]))
        if self.rng.random() < 0.02:
            snapshot = state(self.game)
            json.dumps(snapshot[0])
            self.snapshots.append((len(self.game.log), snapshot))
        return events

    # --- refused actions ----------------------------------------------------------------

    def refuse(self, seat: int, action: str, at: int, deal: Deal | None = None) -> None:
        before = state(self.game)
        try:
            self.game.apply(seat, action, at, deal=deal)
        except GameError as exc:
            self.report.refused += 1
            self.report.codes[exc.code] += 1
            if state(self.game) != before:
                raise self.fail(f"refused p{seat} {action} @{at} changed the game") from None
            return
        except Exception as exc:
            raise self.crash(seat, action, at, exc) from exc
        raise self.fail(f"p{seat} {action} @{at} was accepted; it had to be refused")

    def stir(self) -> None:
        """One round of noise."""
        game, rng = self.game, self.rng
        seats = list(range(1, game.seats + 1))
        seat = rng.choice(seats)
        at = self.at + rng.choice((0, 1, 700))
        choice = rng.randrange(7)
        if choice == 0:
            self.refuse(seat, rng.choice(("fly away", "draw", "discard", "123", "|")), at)
        elif choice == 1:
            self.refuse(game.seats + 1 + rng.randrange(3), "draw closed", at)
        elif choice == 2 and game.clock > 0:
            legal = [a for a in game.legal(seat) if "<" not in a] or ["drop"]
            self.refuse(seat, rng.choice(legal), game.clock - 1)
        elif choice == 3:
            listed = sorted({a for s in seats for a in game.legal(s) if "<" not in a})
            if listed:
                action = rng.choice(listed)
                if not _is_listed(action, game.legal(seat)):
                    self.refuse(seat, action, at)
        elif choice == 4:
            awaited = [a for a in game.awaited() if a.seat != HOUSE and a.deadline is not None]
            waiting = {a.seat for a in game.awaited()}
            if awaited:
                target = rng.choice(awaited)
                assert target.deadline is not None
                if at < target.deadline:
                    self.refuse(target.seat, "timeout", at)
            idle = [s for s in seats if s not in waiting]
            if idle:
                self.refuse(rng.choice(idle), "timeout", at)
        elif choice == 5:
            if all(a.seat != HOUSE for a in game.awaited()):
                deal = Deal.of_fair(FairHouse(self.seed).fair(99), *game.shoe())
                self.refuse(HOUSE, "deal", at, deal)
            self.refuse(seat, "deal", at)
        elif choice == 6 and self.extra_noise is not None:
            for who, action, expect in self.extra_noise(game, rng):
                self.attempt(who, action, self.at + rng.choice((0, 1)), expect)

    def attempt(self, seat: int, action: str, at: int, expect: Expect) -> None:
        if expect is False:
            self.refuse(seat, action, at)
            return
        before = state(self.game)
        try:
            events = self.game.apply(seat, action, at)
        except GameError as exc:
            if expect:
                raise self.fail(f"p{seat} {action} refused: {exc.code}: {exc}") from exc
            if state(self.game) != before:
                raise self.fail(f"refused p{seat} {action} changed the game") from None
            self.report.refused += 1
            self.report.codes[exc.code] += 1
            return
        except Exception as exc:
            raise self.crash(seat, action, at, exc) from exc
        self.at = at
        self.report.noise_accepted += 1
        self.report.actions += 1
        self.report.count(events)
        problems = self.invariants.check(events) + self.typed_events(events) + self.typed_views()
        problems += self.views_agree()
        if problems:
            raise self.fail("; ".join(problems[:5]))

    def typed_events(self, events: Sequence[Event]) -> list[str]:
        """How the events differ from the types the game declares for their kinds
        (:attr:`Game.event_types`; none declared: nothing to check)."""
        if not self.event_types:
            return []
        problems: list[str] = []
        for event in events:
            shape = self.event_types.get(event.kind)
            if shape is None:
                problems.append(f"event {event.kind!r} has no declared type")
                continue
            problems += mismatches(dict(event.data), shape, f"event {event.kind}")
            self.report.typed_events += 1
        return problems

    def typed_views(self) -> list[str]:
        """How every view differs from the game's view type (none given: nothing to check)."""
        if self.view_type is None:
            return []
        problems: list[str] = []
        for viewer in viewers(self.game):
            problems += mismatches(self.game.view(viewer), self.view_type, f"view({viewer})")
        self.report.typed_views += 1
        return problems

    def views_agree(self) -> list[str]:
        """Where the views of every viewer built together (``Game.views``, as a room has them
        built for its watchers, and as the invariants read them) differ from the view each
        viewer gets alone (``Game.view``)."""
        everyone = viewers(self.game)
        together = self.game.views(everyone)
        return [
            f"views(...) of {viewer} differs from view({viewer})"
            for viewer, view in zip(everyone, together, strict=True)
            if view != self.game.view(viewer)
        ]

    def probe(self) -> None:
        """A concrete action ``legal()`` lists must be accepted (tried on a copy)."""
        game, rng = self.game, self.rng
        seat = rng.randrange(1, game.seats + 1)
        legal = [a for a in game.legal(seat) if "<" not in a]
        if not legal:
            return
        action = rng.choice(legal)
        deadline = next((a.deadline for a in game.awaited() if a.seat == seat), None)
        if deadline is not None and game.clock > deadline:
            return  # only the timeout is left, and legal() never lists it
        at = game.clock
        twin = copy.deepcopy(game)
        try:
            twin.apply(seat, action, at)
        except GameError as exc:
            raise self.fail(f"legal({seat}) lists {action!r} but it is refused: {exc}") from exc
        except Exception as exc:
            raise self.crash(seat, action, at, exc) from exc
        self.report.probes += 1

    # --- the game -------------------------------------------------------------------------

    def play(self, max_actions: int) -> None:
        game, rng = self.game, self.rng
        while not game.over:
            if len(game.log) > max_actions:
                raise self.fail(f"not over after {max_actions} actions")
            if rng.random() < self.noise:
                self.stir()
                continue
            if rng.random() < self.probes:
                self.probe()
            awaited = game.awaited()
            if not awaited:
                raise self.fail("the game awaits nobody and is not over")
            at = self.at + rng.choice((1, 500, 1000, 1000, 4000))
            if awaited[0].seat == HOUSE:
                if awaited[0].kind == "deal" and game.log:
                    self.poll(at)
                    at = self.at + 1
                self.apply(HOUSE, "deal", at, self.house.deal(game, awaited[0].kind))
                continue
            target = rng.choice(awaited)
            self.move(target.seat, at, target.deadline)

    def poll(self, at: int) -> None:
        for seat, bot in self.bots.items():
            action = bot.act(self.game.view(seat))
            if action is not None:
                self.apply(seat, action, at)

    def move(self, seat: int, at: int, deadline: int | None) -> None:
        rng = self.rng
        if deadline is not None and (at > deadline or rng.random() < self.timeouts):
            self.report.timeouts += 1
            self.apply(seat, "timeout", max(at, deadline))
            return
        if rng.random() < self.random_moves:
            legal = [a for a in self.game.legal(seat) if "<" not in a and a != "rejoin"]
            if legal:
                self.report.random_moves += 1
                self.apply(seat, rng.choice(legal), at)
                return
        action = self.bots[seat].act(self.game.view(seat))
        if action is None:
            if deadline is None:
                raise self.fail(f"seat {seat} is awaited without a deadline and its bot is idle")
            self.report.timeouts += 1
            self.apply(seat, "timeout", max(at, deadline))
            return
        self.apply(seat, action, at)

    def check_replays(self) -> None:
        record = json.loads(json.dumps(self.game.record()))
        again = replay(record)
        if state(again) != state(self.game):
            raise self.fail("replay of the record differs from the game")
        self.report.replays += 1
        for count, snapshot in self.snapshots:
            if state(replay(record, upto=count)) != snapshot:
                raise self.fail(f"replay of the first {count} actions differs from the game then")
            self.report.replays += 1


def run_conformance(
    make_game: Callable[[int], Game],
    make_bot: Callable[[int, int], Bot],
    seeds: Iterable[int],
    *,
    make_house: Callable[[int], FairHouse] = FairHouse,
    noise: float = 0.2,
    timeouts: float = 0.03,
    random_moves: float = 0.04,
    probes: float = 0.05,
    extra_noise: ExtraNoise | None = None,
    shape: ViewShape | None = None,
    view_type: Any = None,
    max_actions: int = 20_000,
) -> ConformanceReport:
    """Play one game per seed (``make_game(seed)``, bots from ``make_bot(seat, seed)``) under the
    checks of the module docstring. ``noise`` is the chance, before each move, of a noise round
    instead; ``timeouts`` and ``random_moves`` the chances that an awaited seat times out or plays
    a random listed action instead of its bot's. ``shape`` says how to read the views (default:
    the game's own, :func:`rummyhall.games.invariants.view_shape`); ``view_type`` (default: the
    engine's :attr:`~rummyhall.games.protocol.Game.view_type`) is checked against every view after
    every accepted action, and the engine's ``event_types`` against every event. Raises
    AssertionError on the first failure."""
    report = ConformanceReport()
    for seed in seeds:
        game = make_game(seed)
        bots = {seat: make_bot(seat, seed) for seat in range(1, game.seats + 1)}
        play = _Play(
            seed,
            game,
            bots,
            make_house(seed),
            report,
            noise=noise,
            timeouts=timeouts,
            random_moves=random_moves,
            probes=probes,
            extra_noise=extra_noise,
            shape=shape,
            view_type=view_type,
        )
        play.play(max_actions)
        play.check_replays()
        report.games += 1
    return report
