"""Bots play each other: speed, results and invariants (``rummyhall simulate``).

:func:`simulate` seats one bot per seat and plays deals until it has played the number asked
for (a pool plays whole matches, so it may play a few more). The house deals provably-fair decks
derived from the seed (:class:`FairHouse`: deal ``k`` of a run uses the server seed
``sha256(f"{seed}:{k}")``), refills the closed deck from the deal's seeds when the game asks, and
the clock advances a fixed step per action: bots act at once, so no deadline is ever reached.
With ``checks=True`` every invariant of :mod:`rummyhall.games.invariants` is checked after every
action; the report lists what broke. ``checks=False`` skips them, to measure speed.

Rummy Patti (:func:`simulate_patti`) plays one table session: every game is a deal, the stacks
carry over from game to game and the first move passes one seat on each game, as at a real table.
A seat whose stack falls below a third of what it brought buys in again, back to the full stack
(counted as a rebuy): a seat left just above the boot would otherwise pay boots and chaals it
cannot keep up with, game after game, and the per-seat figures would measure that instead of the
bots.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from rummyhall import catalog
from rummyhall.bots import Bot
from rummyhall.cards import Card, shoe
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.invariants import Invariants
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.protocol import HOUSE, Deal, Event, Game, GameError, notation
from rummyhall.shuffle import FairDeal

STEP_MS: Final = 1000
"""Time between two actions of a simulated game (ms)."""
MAX_ACTIONS: Final = 20_000
"""A game still running after this many actions is reported as stuck."""
MAX_VIOLATIONS: Final = 200
"""Violations kept in a report (the count goes on)."""
ENTRY_FEE: Final = 100
"""Chips each player pays into a simulated pool."""
PATTI_BOOT: Final = 10
"""The boot at a simulated Rummy Patti table."""
PATTI_STACK_BOOTS: Final = 300
"""The chips each seat brings to a simulated Rummy Patti table (and buys in again with), in
boots: enough for a long game, short of the pot limit (1024 boots), so that seats do run out."""
PATTI_REBUY_BELOW: Final = 3
"""A seat whose stack falls below 1/3 of :data:`PATTI_STACK_BOOTS` buys in again."""


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
    """Counts gathered from the events of the games played."""

    seats: int
    deals: int = 0
    matches: int = 0
    actions: int = 0
    points: dict[int, int] = field(default_factory=dict)
    wins: dict[int, int] = field(default_factory=dict)
    match_wins: dict[int, int] = field(default_factory=dict)
    first_drops: int = 0
    middle_drops: int = 0
    declarations: int = 0
    wrong_declarations: int = 0
    timeouts: int = 0
    reshuffles: int = 0
    rejoins: int = 0
    checked: int = 0
    violations: list[str] = field(default_factory=list)
    violation_count: int = 0

    def __post_init__(self) -> None:
        for table in (self.points, self.wins, self.match_wins):
            for seat in range(1, self.seats + 1):
                table.setdefault(seat, 0)

    def count(self, events: list[Event]) -> None:
        for event in events:
            kind = event.kind
            data = event.data
            if kind == "drop":
                if data.get("how") == "first drop":
                    self.first_drops += 1
                else:
                    self.middle_drops += 1
            elif kind == "declaration":
                if data.get("valid"):
                    self.declarations += 1
                else:
                    self.wrong_declarations += 1
            elif kind == "deal_end":
                self.deals += 1
                self.wins[int(data["winner"])] += 1
                for seat, score in data["scores"].items():
                    self.points[int(seat)] += int(score)
            elif kind == "game_over":
                self.matches += 1
                for seat in data.get("winners", ()):
                    self.match_wins[int(seat)] += 1
            elif kind == "reshuffle":
                self.reshuffles += 1
            elif kind == "rejoin":
                self.rejoins += 1
            elif kind in {"timeout", "missed"}:
                self.timeouts += 1

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
        for _ in range(5):
            if deadline is not None and at > deadline:
                break
            action = bot.act(self.game.view(seat))
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
    """What :func:`simulate` measured. Per-seat tables are keyed by seat number."""

    game: str
    profile: str
    mode: str
    players: int
    seed: int
    checks: bool
    deals: int
    matches: int
    actions: int
    seconds: float
    points: dict[int, int]
    """Points scored per seat over all deals (lower is better)."""
    wins: dict[int, int]
    """Deals won per seat."""
    match_wins: dict[int, int]
    """Games won per seat (a points game is one deal; a pool is a match)."""
    first_drops: int
    middle_drops: int
    declarations: int
    wrong_declarations: int
    timeouts: int
    reshuffles: int
    rejoins: int
    checked: int
    """Actions after which the invariants were checked."""
    violations: list[str]
    """Invariants broken and actions refused (at most MAX_VIOLATIONS of them)."""
    violation_count: int = 0

    @property
    def deals_per_second(self) -> float:
        return self.deals / self.seconds if self.seconds > 0 else 0.0

    @property
    def drops(self) -> int:
        return self.first_drops + self.middle_drops

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("points", "wins", "match_wins"):
            data[key] = {str(seat): value for seat, value in data[key].items()}
        data["seconds"] = round(self.seconds, 4)
        data["deals_per_second"] = round(self.deals_per_second, 2)
        data["drops"] = self.drops
        return data

    def summary(self) -> str:
        seats = range(1, self.players + 1)
        games = "match" if self.mode != "points" else "game"
        lines = [
            f"simulate {self.game} {self.profile} {self.mode}, {self.players} bots, "
            f"seed {self.seed}",
            f"  {self.deals} deals ({self.matches} {games}{'es' if games == 'match' else 's'}),"
            f" {self.actions} actions in {self.seconds:.2f} s: "
            f"{self.deals_per_second:.1f} deals/s",
            "  seat     " + "".join(f"{seat:>8}" for seat in seats),
            "  points   " + "".join(f"{self.points[seat]:>8}" for seat in seats),
            "  per deal "
            + "".join(f"{self.points[seat] / max(1, self.deals):>8.1f}" for seat in seats),
            "  wins     " + "".join(f"{self.wins[seat]:>8}" for seat in seats),
        ]
        if self.mode != "points":
            lines.append("  matches  " + "".join(f"{self.match_wins[seat]:>8}" for seat in seats))
        lines += [
            f"  drops {self.drops} (first {self.first_drops}, middle {self.middle_drops}); "
            f"declarations {self.declarations} (wrong {self.wrong_declarations}); "
            f"reshuffles {self.reshuffles}; rejoins {self.rejoins}; timeouts {self.timeouts}",
        ]
        if self.checks:
            lines += [
                f"  invariants checked after each of {self.checked} actions: every card in",
                "    exactly one place, postings summing to zero, no view or event showing",
                "    another seat's hidden cards",
            ]
        else:
            lines.append("  invariants not checked (--no-checks)")
        if self.violation_count:
            lines.append(f"  VIOLATIONS: {self.violation_count}")
            lines += [f"    {text}" for text in self.violations[:20]]
        else:
            lines.append("  violations: none")
        return "\n".join(lines)


BotFactory = Callable[[int, int], Bot]
"""(seat, seed) -> a bot for that seat."""


def own_bots(game: str) -> BotFactory:
    """The game's own bot in every seat (its catalog entry's, seeded with the seat's seed)."""
    make = catalog.get(game).bot
    return lambda seat, seed: make(seed)


def simulate(
    game: str | None = None,
    profile: str = "classic",
    players: int = 4,
    deals: int = 500,
    seed: int = 1,
    mode: str = "points",
    checks: bool = True,
    *,
    bots: BotFactory | None = None,
) -> SimReport | PattiReport:
    """Bots play ``deals`` deals (whole matches in a pool) and the report says how it went.

    ``game`` names the game (default: the catalog's first, :func:`rummyhall.catalog.default`);
    its catalog entry says how it is simulated (:attr:`rummyhall.catalog.GamePlugin.simulate`).
    ``bots`` makes the bot of each seat (default: the game's own bot). For ``patti`` a deal is a
    game, ``profile`` is not used and ``mode`` must be ``points`` (:func:`simulate_patti`).
    Raises ValueError for an unknown game or a table the rules do not allow."""
    try:
        plugin = catalog.default() if game is None else catalog.get(game)
    except catalog.UnknownGame:
        known = ", ".join(sorted(catalog.names()))
        raise ValueError(f"no bot plays {game!r}; known: {known}") from None
    if deals < 1:
        raise ValueError("simulate at least one deal")
    report: SimReport | PattiReport = plugin.simulator()(
        profile=profile,
        players=players,
        deals=deals,
        seed=seed,
        mode=mode,
        checks=checks,
        bots=bots,
    )
    return report


def simulate_indian13(
    *,
    profile: str,
    players: int,
    deals: int,
    seed: int,
    mode: str,
    checks: bool,
    bots: BotFactory | None,
) -> SimReport:
    """:func:`simulate` for 13-card Indian Rummy: tables of one match each (a points game is one
    deal), until ``deals`` deals are played."""
    game = Indian13.name
    make_bot = bots or own_bots(game)
    config = Indian13Config(
        profile=profile,
        seats=players,
        mode=mode,
        entry_fee=0 if mode == "points" else ENTRY_FEE,
    )
    house = FairHouse(seed)
    tally = Tally(players)
    full_shoe: list[Card] | None = None
    started = time.perf_counter()
    number = 0
    while tally.deals < deals:
        table = Indian13(config)
        if checks and full_shoe is None:
            full_shoe = shoe(*table.shoe())
        invariants = Invariants(table, full_shoe) if checks and full_shoe is not None else None
        seats = {s: make_bot(s, seed * 1_000_003 + number * 101 + s) for s in range(1, players + 1)}
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
    seconds = time.perf_counter() - started
    return SimReport(
        game=game,
        profile=profile,
        mode=mode,
        players=players,
        seed=seed,
        checks=checks,
        deals=tally.deals,
        matches=tally.matches,
        actions=tally.actions,
        seconds=seconds,
        points=dict(tally.points),
        wins=dict(tally.wins),
        match_wins=dict(tally.match_wins),
        first_drops=tally.first_drops,
        middle_drops=tally.middle_drops,
        declarations=tally.declarations,
        wrong_declarations=tally.wrong_declarations,
        timeouts=tally.timeouts,
        reshuffles=tally.reshuffles,
        rejoins=tally.rejoins,
        checked=tally.checked,
        violations=list(tally.violations),
        violation_count=tally.violation_count,
    )


# --- Rummy Patti ---------------------------------------------------------------------------------


@dataclass(slots=True)
class PattiTally(Tally):
    """What the events of Rummy Patti games add up to: ``points`` are chips won (or lost, below
    zero) per seat, ``wins`` games won (a shared pot counts for every winner), ``counts`` the
    moves and endings by kind."""

    counts: Counter[str] = field(default_factory=Counter)

    def count(self, events: list[Event]) -> None:
        counts = self.counts
        for event in events:
            kind = event.kind
            data = event.data
            if kind == "chaal":
                counts[
                    "auto chaal" if data["auto"] else "chaal 2x" if data["double"] else "chaal"
                ] += 1
            elif kind == "exchange":
                counts[f"exchange {data['with']}"] += 1
                counts["raise"] += bool(data["double"])
            elif kind == "pack":
                counts[f"pack: {data['why']}"] += 1
            elif kind in ("sideshow", "sideshow_accepted", "sideshow_refused", "show"):
                counts[kind.replace("_", " ")] += 1
            elif kind == "timeout":
                self.timeouts += 1
            elif kind == "game_over":
                self.deals += 1
                self.matches += 1
                winners = data["winners"]
                for seat in winners:
                    self.wins[int(seat)] += 1
                for seat, chips in data["points"].items():
                    self.points[int(seat)] += int(chips)
                counts[f"end: {data['detail']['how']}"] += 1
                counts["split pot"] += len(winners) > 1


_PATTI_COUNT_LINES: Final = (
    ("moves", ("chaal", "chaal 2x", "exchange open", "exchange closed", "raise", "auto chaal")),
    ("asks", ("sideshow", "sideshow accepted", "sideshow refused", "show")),
    ("packs", ("pack: packed", "pack: chips", "pack: timeouts")),
    ("endings", ("end: last player", "end: show", "end: pot limit", "split pot")),
)
"""The lines of counts in a Patti report: a label and the counts it lists."""


@dataclass(frozen=True, slots=True)
class PattiReport:
    """What :func:`simulate_patti` measured. Per-seat tables are keyed by seat number."""

    game: str
    players: int
    seed: int
    checks: bool
    boot: int
    stack: int
    games: int
    actions: int
    seconds: float
    chips: dict[int, int]
    """Chips won (lost, below zero) per seat over all games; they sum to zero."""
    wins: dict[int, int]
    """Games won per seat (a shared pot counts for each of its winners)."""
    counts: dict[str, int]
    """Moves and endings by kind: ``chaal``, ``exchange open``, ``pack: chips``, ``end: show``..."""
    rebuys: int
    """Times a seat left short (below a third of its stack) bought in again."""
    timeouts: int
    checked: int
    violations: list[str]
    violation_count: int = 0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("chips", "wins"):
            data[key] = {str(seat): value for seat, value in data[key].items()}
        data["counts"] = dict(sorted(self.counts.items()))
        data["seconds"] = round(self.seconds, 4)
        data["games_per_second"] = round(self.games_per_second, 2)
        return data

    def summary(self) -> str:
        seats = range(1, self.players + 1)
        per_game = self.actions / max(1, self.games)
        lines = [
            f"simulate patti, {self.players} bots, boot {self.boot}, stacks of {self.stack} "
            f"carried from game to game (topped up below {self.stack // PATTI_REBUY_BELOW}), "
            f"seed {self.seed}",
            f"  {self.games} games, {self.actions} actions ({per_game:.1f} a game) in "
            f"{self.seconds:.2f} s: {self.games_per_second:.1f} games/s",
            "  seat     " + "".join(f"{seat:>9}" for seat in seats),
            "  chips    " + "".join(f"{self.chips[seat]:>+9}" for seat in seats),
            "  wins     " + "".join(f"{self.wins[seat]:>9}" for seat in seats),
            *(f"  {label:<9}{self._counts(keys)}" for label, keys in _PATTI_COUNT_LINES),
            f"  rebuys {self.rebuys}; timeouts {self.timeouts}",
        ]
        if self.checks:
            lines += [
                f"  invariants checked after each of {self.checked} actions: every card in",
                "    exactly one place, postings summing to zero, no view or event showing",
                "    another seat's hidden cards (sideshow hands only to the two players)",
            ]
        else:
            lines.append("  invariants not checked (--no-checks)")
        if self.violation_count:
            lines.append(f"  VIOLATIONS: {self.violation_count}")
            lines += [f"    {text}" for text in self.violations[:20]]
        else:
            lines.append("  violations: none")
        return "\n".join(lines)

    def _counts(self, keys: tuple[str, ...]) -> str:
        def name(key: str) -> str:
            return key.partition(": ")[2] or key

        return ", ".join(f"{name(key)} {self.counts.get(key, 0)}" for key in keys)


def simulate_patti(
    players: int = 6,
    games: int = 2000,
    seed: int = 1,
    checks: bool = True,
    *,
    boot: int = PATTI_BOOT,
    stack: int = PATTI_STACK_BOOTS * PATTI_BOOT,
    bots: BotFactory | None = None,
) -> PattiReport:
    """Bots play ``games`` games of Rummy Patti at one table (see the module docstring): stacks of
    ``stack`` chips carried over, a rebuy to ``stack`` for a seat left below a third of it, the
    first move one seat on each game. Raises ValueError for a table the rules do not allow."""
    if games < 1:
        raise ValueError("simulate at least one game")
    config = PattiConfig(seats=players, boot=boot, stacks=(stack,) * players)
    make_bot = bots or own_bots(Patti.name)
    seats = {s: make_bot(s, seed * 1_000_003 + s) for s in range(1, players + 1)}
    house = FairHouse(seed)
    tally = PattiTally(players)
    full_shoe = shoe(1, 0)
    rebuys = 0
    started = time.perf_counter()
    for number in range(games):
        table = Patti(config)
        invariants = Invariants(table, full_shoe) if checks else None
        runner = Runner(
            table, seats, house, tally, invariants=invariants, label=f"game {number + 1}, "
        )
        try:
            runner.run()
        except _Stuck:
            break
        if not table.over:
            break  # reported as a violation already
        stacks = list(table.final_stacks())
        for index, chips in enumerate(stacks):
            if chips < max(boot, stack // PATTI_REBUY_BELOW):
                stacks[index] = stack
                rebuys += 1
        config = config.following(stacks)
    seconds = time.perf_counter() - started
    return PattiReport(
        game=Patti.name,
        players=players,
        seed=seed,
        checks=checks,
        boot=boot,
        stack=stack,
        games=tally.deals,
        actions=tally.actions,
        seconds=seconds,
        chips=dict(tally.points),
        wins=dict(tally.wins),
        counts=dict(tally.counts),
        rebuys=rebuys,
        timeouts=tally.timeouts,
        checked=tally.checked,
        violations=list(tally.violations),
        violation_count=tally.violation_count,
    )


def simulate_patti_session(
    *,
    profile: str,
    players: int,
    deals: int,
    seed: int,
    mode: str,
    checks: bool,
    bots: BotFactory | None,
) -> PattiReport:
    """:func:`simulate` for Rummy Patti: one table session of ``deals`` games
    (:func:`simulate_patti`); there is no profile and no mode."""
    if mode != "points":
        raise ValueError("Rummy Patti has no modes; leave --mode out")
    return simulate_patti(players, deals, seed, checks, bots=bots)
