"""What a simulation of Rummy Patti counts and reports (``rummyhall simulate --game patti``; the
catalog entry's tally, a :class:`rummyhall.sim.Tally`).

The games are one table session: every game is a deal, the same bots play throughout, the stacks
carry over from game to game and the first move passes one seat on each game
(:meth:`~rummyhall.games.patti.engine.Patti.table_config`), as at a real table. A seat whose stack
falls below a third of what it brought buys in again, back to the full stack (counted as a
rebuy): a seat left just above the boot would otherwise pay boots and chaals it cannot keep up
with, game after game, and the per-seat figures would measure that instead of the bots.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final

from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.events import ChaalEvent, ExchangeEvent, PackEvent
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.protocol import JSON, Event, Game, data_of
from rummyhall.games.protocol_views import ResultView
from rummyhall.sim import SimReport, Tally, simulate

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rummyhall.sim import BotFactory

BOOT: Final = 10
"""The boot at a simulated Rummy Patti table."""
STACK_BOOTS: Final = 300
"""The chips each seat brings to a simulated Rummy Patti table (and buys in again with), in
boots: enough for a long game, short of the pot limit (1024 boots), so that seats do run out."""
REBUY_BELOW: Final = 3
"""A seat whose stack falls below 1/3 of :data:`STACK_BOOTS` buys in again."""

_COUNT_LINES: Final = (
    ("moves", ("chaal", "chaal 2x", "exchange open", "exchange closed", "raise", "auto chaal")),
    ("asks", ("sideshow", "sideshow accepted", "sideshow refused", "show")),
    ("packs", ("pack: packed", "pack: chips", "pack: timeouts")),
    ("endings", ("end: last player", "end: show", "end: pot limit", "split pot")),
)
"""The lines of counts in a report: a label and the counts it lists."""


@dataclass(slots=True)
class PattiTally(Tally):
    """What the events of Rummy Patti games add up to: ``points`` are chips won (or lost, below
    zero) per seat, ``wins`` games won (a shared pot counts for every winner), ``counts`` the
    moves and endings by kind, ``rebuys`` the times a seat left short bought in again."""

    session: ClassVar[bool] = True
    hidden: ClassVar[str] = "another seat's hidden cards (sideshow hands only to the two players)"

    boot: int = BOOT
    stack: int = STACK_BOOTS * BOOT
    points: dict[int, int] = field(default_factory=dict)
    wins: dict[int, int] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    rebuys: int = 0

    def __post_init__(self) -> None:
        for table in (self.points, self.wins):
            for seat in range(1, self.seats + 1):
                table.setdefault(seat, 0)

    def setup(self, *, profile: str, mode: str, options: Mapping[str, Any]) -> JSON:
        """A table of :attr:`seats` with ``options`` ``boot`` and ``stack`` (default
        :data:`BOOT` and :data:`STACK_BOOTS` boots); there is no profile, and no mode."""
        if mode != "points":
            raise ValueError("Rummy Patti has no modes; leave --mode out")
        self.boot = int(options.get("boot", BOOT))
        self.stack = int(options.get("stack", STACK_BOOTS * self.boot))
        config = PattiConfig(seats=self.seats, boot=self.boot, stacks=(self.stack,) * self.seats)
        return config.to_json()

    def count(self, events: list[Event]) -> None:
        counts = self.counts
        for event in events:
            kind = event.kind
            if kind == "chaal":
                chaal = data_of(event, ChaalEvent)
                counts[
                    "auto chaal" if chaal["auto"] else "chaal 2x" if chaal["double"] else "chaal"
                ] += 1
            elif kind == "exchange":
                exchange = data_of(event, ExchangeEvent)
                counts[f"exchange {exchange['with']}"] += 1
                counts["raise"] += exchange["double"]
            elif kind == "pack":
                counts[f"pack: {data_of(event, PackEvent)['why']}"] += 1
            elif kind in ("sideshow", "sideshow_accepted", "sideshow_refused", "show"):
                counts[kind.replace("_", " ")] += 1
            elif kind == "timeout":
                self.timeouts += 1
            elif kind == "game_over":
                self.deals += 1
                self.matches += 1
                result = data_of(event, ResultView)
                winners = result["winners"]
                for seat in winners:
                    self.wins[seat] += 1
                for seat_text, chips in result["points"].items():
                    self.points[int(seat_text)] += chips
                counts[f"end: {result['detail']['how']}"] += 1
                counts["split pot"] += len(winners) > 1

    def stacks(self, game: Game) -> dict[int, int]:
        """The stacks after ``game``, a seat below a third of its stack bought in again."""
        assert isinstance(game, Patti)
        stacks = {}
        for seat, chips in enumerate(game.final_stacks(), start=1):
            if chips < max(self.boot, self.stack // REBUY_BELOW):
                chips = self.stack
                self.rebuys += 1
            stacks[seat] = chips
        return stacks

    def figures(self, report: SimReport) -> dict[str, Any]:
        seconds = report.seconds
        return {
            "game": report.game,
            "players": report.players,
            "seed": report.seed,
            "checks": report.checks,
            "boot": self.boot,
            "stack": self.stack,
            "games": self.deals,
            "actions": self.actions,
            "seconds": seconds,
            "chips": dict(self.points),
            "wins": dict(self.wins),
            "counts": dict(sorted(self.counts.items())),
            "rebuys": self.rebuys,
            "timeouts": self.timeouts,
            "checked": self.checked,
            "violations": list(self.violations),
            "violation_count": self.violation_count,
            "games_per_second": self.deals / seconds if seconds > 0 else 0.0,
        }

    def lines(self, report: SimReport) -> list[str]:
        seats = range(1, report.players + 1)
        per_game = self.actions / max(1, self.deals)
        rate = self.deals / report.seconds if report.seconds > 0 else 0.0
        return [
            f"simulate {report.game}, {report.players} bots, boot {self.boot}, stacks of "
            f"{self.stack} carried from game to game (topped up below "
            f"{self.stack // REBUY_BELOW}), seed {report.seed}",
            f"  {self.deals} games, {self.actions} actions ({per_game:.1f} a game) in "
            f"{report.seconds:.2f} s: {rate:.1f} games/s",
            "  seat     " + "".join(f"{seat:>9}" for seat in seats),
            "  chips    " + "".join(f"{self.points[seat]:>+9}" for seat in seats),
            "  wins     " + "".join(f"{self.wins[seat]:>9}" for seat in seats),
            *(f"  {label:<9}{self._counts(keys)}" for label, keys in _COUNT_LINES),
            f"  rebuys {self.rebuys}; timeouts {self.timeouts}",
        ]

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
    boot: int = BOOT,
    stack: int = STACK_BOOTS * BOOT,
    bots: BotFactory | None = None,
) -> SimReport:
    """:func:`rummyhall.sim.simulate` of ``games`` games of Rummy Patti at one table, with its
    own settings: the boot, and the ``stack`` each seat brings (and buys in again with)."""
    return simulate(
        Patti.name,
        players=players,
        deals=games,
        seed=seed,
        checks=checks,
        bots=bots,
        options={"boot": boot, "stack": stack},
    )
