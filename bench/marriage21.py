"""Benchmark of 21-card Marriage Rummy against 13-card classic rummy, in one run: deals per
second of ``simulate``, the bot's time per decision and the solver's time per hand.

    python bench/marriage21.py [--deals 300] [--bot-deals 100] [--hands 3000] [--seed 1] [--quick]

Targets (one core): Marriage ``simulate(players=4, checks=False)`` at least 20 complete deals per
second; the Marriage bot's p99 decision time under 20 ms; the solver's p99 on a random 22-card
Marriage hand under 5 ms. Each figure is printed next to the 13-card game's, measured the same
way in the same run, with the ratio: these machines are noisy, and a ratio says more than a
figure. The exit status is 1 when a target is missed.

Method.

* Deals per second: a short warm-up of each game on other seeds builds the solver's per-suit
  tables, as a running server has them; then ``simulate(..., checks=False)`` is timed as a whole,
  the 13-card classic points table (``simulate()``'s default game) and Marriage, 4 bots each.
* Decision time: another ``simulate`` of each game whose bots (the game's own, made by the
  catalog's factory) are wrapped so that every ``bot.act(view)`` call is timed on its own with
  ``time.perf_counter``, the calls between deals included. These runs are apart from the deals
  per second, so that the wrapper costs those nothing.
* Solver: ``arrange`` on random hands of a shuffled shoe with the next card as the cut card:
  22 cards of 3 packs of 53 (``marriage21``) and 14 cards of 2 packs of 53 (``indian13/classic``),
  the hands a player holds after drawing, each class warmed up first on as many hands from
  another seed as a full run times (``--quick`` too: a cold table's p99 says little).

As ``timeit`` does, the garbage collector is paused during each timed call (bot or solver), so a
collection is not billed to whichever call it happened to interrupt.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from rummyhall import catalog
from rummyhall.cards import Card, shoe
from rummyhall.melds import arrange
from rummyhall.sim import SimReport, simulate
from timing import ms, percentile, timed_bots, verdict

MARRIAGE = "marriage21"
DEALS_TARGET = 20.0
"""Marriage deals per second, at least."""
BOT_P99_TARGET_MS = 20.0
"""Marriage bot decision time, p99, below."""
SOLVER_P99_TARGET_MS = 5.0
"""arrange() on a random 22-card Marriage hand, p99, below."""


@dataclass(frozen=True)
class Figures:
    """What one game measured: deals per second, decision times, solver times (seconds)."""

    name: str
    run: SimReport
    decisions: list[float]
    solver: list[float]
    hand_size: int
    profile: str


def deals_run(game: str | None, deals: int, seed: int) -> SimReport:
    simulate(game=game, deals=max(5, deals // 10), seed=seed + 10_000, checks=False)  # warm-up
    return simulate(game=game, players=4, deals=deals, seed=seed, checks=False)


def decision_times(game: str | None, deals: int, seed: int) -> list[float]:
    times: list[float] = []
    name = game or catalog.default().name
    report = simulate(
        game=game, players=4, deals=deals, seed=seed, checks=False, bots=timed_bots(name, times)
    )
    if report.violation_count:
        raise SystemExit(f"{name}: the bots' game broke an invariant: {report.violations[:3]}")
    return times


def random_hands(seed: int, size: int, decks: int, count: int) -> list[tuple[list[Card], Card]]:
    rng = random.Random(seed)
    hands = []
    for _ in range(count):
        cards = shoe(decks, 1)
        rng.shuffle(cards)
        hands.append((cards[:size], cards[size]))
    return hands


def solver_times(
    size: int, decks: int, profile: str, count: int, seed: int, warm: int
) -> list[float]:
    for hand, cut in random_hands(seed + 50, size, decks, warm):  # warm-up, other hands
        arrange(hand, joker=cut, profile=profile)
    gc.collect()
    times = []
    for hand, cut in random_hands(seed, size, decks, count):
        gc.disable()
        try:
            started = time.perf_counter()
            arrange(hand, joker=cut, profile=profile)
            times.append(time.perf_counter() - started)
        finally:
            gc.enable()
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300, help="deals timed for deals/s")
    parser.add_argument("--bot-deals", type=int, default=100, help="deals of timed decisions")
    parser.add_argument("--hands", type=int, default=3000, help="solver hands of each class")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a tenth of everything (a smoke run)")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    deals = max(3, int(args.deals * scale))
    bot_deals = max(2, int(args.bot_deals * scale))
    hands = max(20, int(args.hands * scale))

    print("21-card Marriage against 13-card classic rummy: one core, pure Python")
    print(f"python {sys.version.split()[0]}, seed {args.seed}, quick={args.quick}\n")
    games = []
    for name, game, size, decks, profile in (
        ("13-card classic", None, 14, 2, "indian13/classic"),
        ("21-card Marriage", MARRIAGE, 22, 3, MARRIAGE),
    ):
        run = deals_run(game, deals, args.seed)
        decisions = decision_times(game, bot_deals, args.seed + 1)
        # The warm-up is never scaled down: a quick run's tables are as warm as a full one's.
        solver = solver_times(size, decks, profile, hands, args.seed * 100 + size, args.hands)
        games.append(Figures(name, run, decisions, solver, size, profile))
    classic, marriage = games

    misses = 0
    print(f"(a) simulate, 4 bots, no checks ({deals} deals each, seed {args.seed}):")
    for figures in games:
        run = figures.run
        print(
            f"  {figures.name:<17} {run.deals:>5} deals in {run.seconds:6.2f} s: "
            f"{run.deals_per_second:6.1f} deals/s ({run.actions / run.deals:.1f} actions a deal)"
        )
    rate = marriage.run.deals_per_second
    ok = rate >= DEALS_TARGET
    misses += not ok
    print(
        f"  Marriage/classic: {rate / classic.run.deals_per_second:.2f}x the deals per second; "
        f"target >= {DEALS_TARGET:.0f} deals/s: {verdict(ok)}"
    )

    print(f"\n(b) bot decision time, every bot.act(view) of 4 bots over {bot_deals} deals:")
    for figures in games:
        times = figures.decisions
        print(
            f"  {figures.name:<17} {len(times):>6} decisions: p50 {ms(statistics.median(times))}, "
            f"p99 {ms(percentile(times, 0.99))}, max {ms(max(times))}"
        )
    p99 = percentile(marriage.decisions, 0.99)
    ok = p99 * 1e3 < BOT_P99_TARGET_MS
    misses += not ok
    print(
        f"  Marriage/classic p99: {p99 / percentile(classic.decisions, 0.99):.2f}x; "
        f"target p99 < {BOT_P99_TARGET_MS:.0f} ms: {verdict(ok)}"
    )

    print(f"\n(c) solver, arrange() on random hands with a drawn card ({hands} each, warmed up):")
    for figures in games:
        times = figures.solver
        label = f"{figures.hand_size} cards ({figures.profile})"
        print(
            f"  {label:<28} p50 {ms(statistics.median(times))}, "
            f"p99 {ms(percentile(times, 0.99))}, max {ms(max(times))}"
        )
    p99 = percentile(marriage.solver, 0.99)
    ok = p99 * 1e3 < SOLVER_P99_TARGET_MS
    misses += not ok
    print(
        f"  Marriage/classic p99: {p99 / percentile(classic.solver, 0.99):.2f}x; "
        f"target p99 < {SOLVER_P99_TARGET_MS:.0f} ms: {verdict(ok)}"
    )

    print(f"\n{'all targets met' if not misses else f'{misses} target(s) NOT MET'}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
