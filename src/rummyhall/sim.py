"""Bots play each other: speed, results and invariants (``rummyhall simulate``).

:func:`simulate` plays any game of the catalog the same way: one bot per seat, games one after
another until the number of deals asked for is played (a pool plays whole matches, so it may play
a few more). The house deals provably-fair decks derived from the seed (:class:`FairHouse`: deal
``k`` of a run uses the server seed ``sha256(f"{seed}:{k}")``), refills the closed deck from the
deal's seeds when the game asks, and the clock advances a fixed step per action: bots act at
once, so no deadline is ever reached. With ``checks=True`` every invariant of
:mod:`rummyhall.games.invariants` is checked after every action; the report lists what broke.
``checks=False`` skips them, to measure speed. While it runs, the objects that existed before it
(modules, the solver's tables, the bots' memo) are frozen out of the garbage collector's way
(``gc.freeze``) and handed back after: a run sets off collections all the time, and each full one
walked that heap again. For a game whose tables make no reference cycles (:attr:`Tally.acyclic`),
what each table leaves alive is frozen too, as the room's collector does every few seconds
(:mod:`rummyhall.server.collector`).

What differs from game to game is the game's :class:`Tally` (its catalog entry's
:attr:`~rummyhall.catalog.GamePlugin.tally`, in ``games/<name>/tally.py``): the first game's config
(:meth:`Tally.setup`), what its events add up to (:meth:`Tally.count`), whether its games are one
table session (:attr:`Tally.session`: the same bots throughout, each next game's config from the
engine's :meth:`~rummyhall.games.protocol.Game.table_config` with the stacks
:meth:`Tally.stacks` gives) or each a new table with new bots, and the report's figures and lines
(:meth:`Tally.figures`, :meth:`Tally.lines`). There is one report type, :class:`SimReport`.
"""

from __future__ import annotations

import gc
import hashlib
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from rummyhall import catalog
from rummyhall.bots import Bot
from rummyhall.cards import Card, shoe
from rummyhall.games.invariants import Invariants
from rummyhall.games.protocol import HOUSE, JSON, Deal, Event, Game, GameError, notation
from rummyhall.shuffle import FairDeal

STEP_MS: Final = 1000
"""Time between two actions of a simulated game (ms)."""
MAX_ACTIONS: Final = 20_000
"""A game still running after this many actions is reported as stuck."""
MAX_VIOLATIONS: Final = 200
"""Violations kept in a report (the count goes on)."""


class FairHouse:
    """The house of a simulation: provably-fair decks derived from ``seed``, one per new deal
    (``sha256(f"{seed}:{k}")`` is the server seed of the run's deal ``k``, which is also the
    nonce), and refills of the closed deck derived from the current deal's seeds, as at a real
    table (:meth:`rummyhall.games.protocol.Deal.of_refill`)."""

    def __init__(self, seed: int, client_seed: str = "rummyhall-sim") -> None:
        self.seed = seed
        self.client_seed = client_seed
        self.deals = 0
        self.current: FairDeal | None = None
        """The seeds of the deal being played."""
        self.refills = 0
        """Refills of the closed deck in the current deal so far."""

    def fair(self, index: int) -> FairDeal:
        server_seed = hashlib.sha256(f"{self.seed}:{index}".encode()).digest()
        return FairDeal(server_seed, self.client_seed, index)

    def deal(self, game: Game, kind: str) -> Deal:
        """What the house deals when the game awaits it for ``kind`` (``deal``, ``reshuffle``)."""
        if kind == "reshuffle":
            return self.refill(game)
        fair = self.fair(self.deals)
        self.deals += 1
        self.current, self.refills = fair, 0
        return Deal.of_fair(fair, *game.shoe())

    def refill(self, game: Game) -> Deal:
        """The open pile under its top card, in the order the deal's seeds give the next refill:
        a new closed deck (rummy games)."""
        if self.current is None:
            raise RuntimeError("a refill before any deal")
        self.refills += 1
        return Deal.of_refill(self.current, self.refills, game.refill_source())


@dataclass(slots=True)
class Tally:
    """What the events of a simulation add up to. This base counts what every game has (deals,
    actions, checks, violations) and counts no event; a game's tally (``games/<name>/tally.py``)
    counts its events in :meth:`count` and says how its games are set up and reported."""

    seats: int
    deals: int = 0
    """Deals played (for a game without deals inside it, games)."""
    matches: int = 0
    """Games (matches) played to their end."""
    actions: int = 0
    timeouts: int = 0
    checked: int = 0
    """Actions after which the invariants were checked."""
    violations: list[str] = field(default_factory=list)
    """Invariants broken and actions refused (at most MAX_VIOLATIONS of them)."""
    violation_count: int = 0

    session: ClassVar[bool] = False
    """Whether the games are one table session: the same bots throughout, and each next game's
    config from the engine's ``table_config`` (with :meth:`stacks`). Else every game is a new
    table, with new bots, from the same config."""
    acyclic: ClassVar[bool] = False
    """Whether the game's tables, bots and events make no reference cycles, so that everything
    of theirs goes by reference counting (tests/test_sim.py checks every game that says so).
    Then a run freezes what each finished table leaves alive (mostly the solver's and the bots'
    memos, which grow all the time) instead of letting collection after collection of the older
    generations walk it again: frozen, an object is still freed when its last reference goes,
    but a cycle among frozen objects would wait for the end of the run."""
    hidden: ClassVar[str] = "another seat's hidden cards"
    """What the views and events were checked never to show (the report's words)."""

    def setup(self, *, profile: str, mode: str, options: Mapping[str, Any]) -> JSON:
        """The config of the first game for :attr:`seats` players (``options``: the game's own
        settings of a simulation); ValueError for a table the rules do not allow."""
        raise NotImplementedError(f"{type(self).__name__} does not set up a simulation")

    def count(self, events: list[Event]) -> None:
        """Count what ``events`` (of one accepted action) add up to."""

    def stacks(self, game: Game) -> dict[int, int]:
        """The chips each seat brings to the next game of a session, after ``game`` ended."""
        return {}

    def figures(self, report: SimReport) -> dict[str, Any]:
        """Everything the report says, by name, in the order of its JSON (per-seat tables keyed
        by seat number); :attr:`SimReport` reads its attributes from here."""
        return {}

    def lines(self, report: SimReport) -> list[str]:
        """The report's lines above the invariants and violations."""
        return []

    def violation(self, text: str) -> None:
        self.violation_count += 1
        if len(self.violations) < MAX_VIOLATIONS:
            self.violations.append(text)


class Runner:
    """Plays one game to its end: the house deals, each awaited seat's bot acts on its view.

    ``invariants`` (if given) are checked after every action. A bot that answers nothing when
    awaited is timed out at its deadline; an action the game refuses is a violation (the bot is
    asked again, and never repeats a refused action)."""

    def __init__(
        self,
        game: Game,
        bots: Mapping[int, Bot],
        house: FairHouse,
        tally: Tally,
        *,
        invariants: Invariants | None = None,
        label: str = "",
        step: int = STEP_MS,
    ) -> None:
        self.game = game
        self.bots = bots
        self.house = house
        self.tally = tally
        self.invariants = invariants
        self.label = label
        self.step = step
        self.at = game.clock

    def apply(self, seat: int, action: str, at: int, deal: Deal | None = None) -> list[Event]:
        events = self.game.apply(seat, action, at, deal=deal)
        self.at = at
        self.tally.actions += 1
        self.tally.count(events)
        if self.invariants is not None:
            self.tally.checked += 1
            for problem in self.invariants.check(events):
                line = notation(self.game.log[-1])
                self.tally.violation(f"{self.label}action {len(self.game.log)} ({line}): {problem}")
        return events

    def run(self, max_actions: int = MAX_ACTIONS) -> None:
        game = self.game
        start = len(game.log)
        while not game.over:
            if len(game.log) - start >= max_actions:
                self.tally.violation(f"{self.label}still running after {max_actions} actions")
                return
            awaited = game.awaited()
            if not awaited:
                self.tally.violation(f"{self.label}the game awaits nobody but is not over")
                return
            first = awaited[0]
            at = self.at + self.step
            if first.seat == HOUSE:
                if first.kind == "deal" and game.log:
                    self.poll(at)  # between deals: rejoins and the like
                    at = self.at + self.step
                self.apply(HOUSE, "deal", at, self.house.deal(game, first.kind))
                continue
            self.move(first.seat, at, first.deadline)

    def poll(self, at: int) -> None:
        """Ask every bot whether it wants to do something (e.g. rejoin) before the next deal."""
        for seat, bot in self.bots.items():
            for _ in range(3):
                action = bot.act(self.game.view(seat))
                if action is None:
                    break
                if self.attempt(seat, action, at):
                    at += self.step
                    break

    def move(self, seat: int, at: int, deadline: int | None) -> None:
        """The awaited ``seat`` acts; if its bot has nothing (or only refused actions), the
        server's timeout is applied at the deadline."""
        bot = self.bots[seat]
        for attempt in range(5):
            if deadline is not None and at > deadline:
                break
            # The first time, the view the invariants just checked (nothing has changed since).
            checked = None if attempt else self.invariants
            view = self.game.view(seat) if checked is None else checked.take_view(seat)
            action = bot.act(view)
            if action is None:
                break
            if self.attempt(seat, action, at):
                return
        if deadline is None:
            self.tally.violation(f"{self.label}seat {seat} is stuck and has no deadline")
            raise _Stuck
        self.apply(seat, "timeout", max(at, deadline))

    def attempt(self, seat: int, action: str, at: int) -> bool:
        try:
            self.apply(seat, action, at)
        except GameError as exc:
            self.tally.violation(
                f"{self.label}seat {seat}'s bot sent {action!r}: refused ({exc.code}: {exc})"
            )
            return False
        return True


class _Stuck(Exception):
    """A seat the game waits for without a deadline sent nothing usable."""


@dataclass(frozen=True, slots=True)
class SimReport:
    """What :func:`simulate` measured, for any game. Besides the fields below, a report has the
    figures of its game's tally as attributes (:meth:`Tally.figures`: ``points``, ``drops``,
    ``chips``, ``counts``, ``deals_per_second``...)."""

    game: str
    players: int
    seed: int
    checks: bool
    seconds: float
    tally: Tally
    """The game's tally at the end of the run."""

    def __getattr__(self, name: str) -> Any:
        figures = self.tally.figures(self)
        if name in figures:
            return figures[name]
        raise AttributeError(f"{type(self).__name__!r} of {self.game} has no {name!r}")

    @property
    def deals(self) -> int:
        return self.tally.deals

    @property
    def matches(self) -> int:
        return self.tally.matches

    @property
    def actions(self) -> int:
        return self.tally.actions

    @property
    def checked(self) -> int:
        return self.tally.checked

    @property
    def violations(self) -> list[str]:
        return list(self.tally.violations)

    @property
    def violation_count(self) -> int:
        return self.tally.violation_count

    def to_json(self) -> dict[str, Any]:
        """The figures as JSON: per-seat tables keyed by the seat's number as text, times rounded
        (seconds to 0.1 ms, rates to 0.01)."""
        data = self.tally.figures(self)
        for key, value in data.items():
            if isinstance(value, dict) and all(isinstance(k, int) for k in value):
                data[key] = {str(seat): n for seat, n in value.items()}
            elif key == "seconds":
                data[key] = round(value, 4)
            elif key.endswith("_per_second"):
                data[key] = round(value, 2)
        return data

    def summary(self) -> str:
        lines = self.tally.lines(self)
        if self.checks:
            lines += [
                f"  invariants checked after each of {self.checked} actions: every card in",
                "    exactly one place, postings summing to zero, no view or event showing",
                f"    {self.tally.hidden}",
            ]
        else:
            lines.append("  invariants not checked (--no-checks)")
        if self.violation_count:
            lines.append(f"  VIOLATIONS: {self.violation_count}")
            lines += [f"    {text}" for text in self.violations[:20]]
        else:
            lines.append("  violations: none")
        return "\n".join(lines)


@contextmanager
def _older_heap_frozen() -> Iterator[bool]:
    """Leave the objects that exist before a simulation (modules, the solver's tables, the bots'
    memo) out of the garbage collector's way while it runs (``gc.freeze``), and hand them back to
    it after. A simulation makes objects all the time, so it sets off collections all the time,
    and each full one walked that whole heap again: a tenth of the time of a run without checks.
    A caller that froze objects of its own keeps them frozen, untouched. Yields whether the run
    owns the freeze: only then may it freeze more (everything frozen is handed back at the end)."""
    if gc.get_freeze_count():
        yield False
        return
    gc.freeze()
    try:
        yield True
    finally:
        gc.unfreeze()


BotFactory = Callable[[int, int], Bot]
"""(seat, seed) -> a bot for that seat."""


def own_bots(game: str) -> BotFactory:
    """The game's own bot in every seat (its catalog entry's, seeded with the seat's seed)."""
    make = catalog.get(game).bot
    return lambda seat, seed: make(seed)


def simulate(
    game: str | None = None,
    profile: str | None = None,
    players: int = 4,
    deals: int = 500,
    seed: int = 1,
    mode: str = "points",
    checks: bool = True,
    *,
    bots: BotFactory | None = None,
    options: Mapping[str, Any] | None = None,
) -> SimReport:
    """Bots play ``deals`` deals (whole matches in a pool) and the report says how it went.

    ``game`` names the game (default: the catalog's first, :func:`rummyhall.catalog.default`);
    its tally (:attr:`rummyhall.catalog.GamePlugin.tally`) sets the table up from ``profile`` (by
    default the game's first, :attr:`~rummyhall.catalog.GamePlugin.profiles`, or ``""`` for a game
    without profiles), ``mode`` and ``options`` (the game's own settings, e.g. Rummy Patti's
    ``boot`` and ``stack``) and counts what happens. ``bots`` makes the bot of each seat
    (default: the game's own bot).
    Raises ValueError for an unknown game or a table the rules do not allow."""
    try:
        plugin = catalog.default() if game is None else catalog.get(game)
    except catalog.UnknownGame:
        known = ", ".join(sorted(catalog.names()))
        raise ValueError(f"no bot plays {game!r}; known: {known}") from None
    if deals < 1:
        raise ValueError("simulate at least one deal")
    tally = plugin.tally_class()(players)
    if profile is None:
        profile = plugin.profiles[0] if plugin.profiles else ""
    first = tally.setup(profile=profile, mode=mode, options=options or {})
    engine = plugin.engine
    make_bot = bots or own_bots(plugin.name)
    house = FairHouse(seed)
    full_shoe: list[Card] | None = None
    seats: dict[int, Bot] = {}
    config = first
    with _older_heap_frozen() as freezing:
        freezing = freezing and tally.acyclic
        started = time.perf_counter()
        number = 0
        while tally.deals < deals:
            table = engine.create(config)
            if checks and full_shoe is None:
                full_shoe = shoe(*table.shoe())
            invariants = Invariants(table, full_shoe) if checks and full_shoe is not None else None
            if not (tally.session and seats):  # a new table: new bots
                salt = 0 if tally.session else number * 101
                seats = {s: make_bot(s, seed * 1_000_003 + salt + s) for s in range(1, players + 1)}
            runner = Runner(
                table, seats, house, tally, invariants=invariants, label=f"game {number + 1}, "
            )
            before = tally.deals
            try:
                runner.run()
            except _Stuck:
                break
            if tally.deals == before:
                break  # a game without a deal: reported as a violation already
            number += 1
            if freezing:
                gc.freeze()  # what the table left alive (see Tally.acyclic)
            if tally.session:
                config = engine.table_config(first, game_no=number + 1, stacks=tally.stacks(table))
        seconds = time.perf_counter() - started
    return SimReport(
        game=plugin.name, players=players, seed=seed, checks=checks, seconds=seconds, tally=tally
    )
