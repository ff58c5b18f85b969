"""Benchmark of `rummyhall simulate`: complete deals per second of 4 bots at a classic points
table, without checks and with every invariant checked, and the time a bot takes to decide.

    python bench/simulate.py [--deals 300] [--bot-deals 100] [--seed 1]

Targets (issue 20, one core): at least 300 deals/s without checks (``--no-checks``) and at least
100 with every invariant checked after every action (``simulate``'s default). A missed target is
printed as NOT MET; the exit status is 1 only when an invariant broke (or a bot's action was
refused), so that ``make bench`` goes on to the other benchmarks.

Method. A short warm-up on other deals builds the solver's per-suit tables, as a running server
has them. Then:

* no checks: ``simulate(..., checks=False)`` plays the deals, timed as a whole; the solver calls
  the bots make are counted and timed (calls the bots' memo answers are not), which splits the
  time between the solver (src/rummyhall/melds) and the rest: engine, bots, house and runner;
* checks: as many deals again (from another seed) with every invariant checked after every
  action, the solver calls counted and timed the same way;
* decisions: another run of ``--bot-deals`` deals whose bots are wrapped so that every
  ``bot.act(view)`` is timed on its own (bench/timing.py), apart from the deals per second so that
  the wrapper costs those nothing.

One baseline is measured in the same run, because these machines are noisy and a ratio says more
than a figure. solver: as many ``arrange`` calls as the bots made, on random 14-card hands of
fresh deals: what the deals would cost if they were nothing but solver calls on random hands.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import rummyhall.games.rummy.bot as bot_module
from rummyhall.cards import shoe
from rummyhall.melds import Arrangement, arrange
from rummyhall.sim import SimReport, simulate
from timing import ms, percentile, timed_bots, verdict

GAME = "indian13"
TARGET = 300.0
"""Deals per second without checks, at least."""
CHECKED_TARGET = 100.0
"""Deals per second with every invariant checked, at least."""


def counted_run(deals: int, seed: int, *, checks: bool) -> tuple[SimReport, int, float]:
    """simulate: the report, the solver calls of the bots and their seconds."""
    calls = 0
    spent = 0.0

    def counting(*args: Any, **kwargs: Any) -> Arrangement:
        nonlocal calls, spent
        calls += 1
        started = time.perf_counter()
        try:
            return arrange(*args, **kwargs)
        finally:
            spent += time.perf_counter() - started

    setattr(bot_module, "arrange", counting)  # noqa: B010 (a module attribute, on purpose)
    try:
        report = simulate(game=GAME, deals=deals, seed=seed, players=4, checks=checks)
    finally:
        setattr(bot_module, "arrange", arrange)  # noqa: B010
    return report, calls, spent


def solver_baseline(calls: int, seed: int) -> float:
    """Seconds for ``calls`` arrange calls on random 14-card hands (cut card from the same deck)."""
    rng = random.Random(seed)
    hands = []
    for _ in range(calls):
        cards = shoe(2, 1)
        rng.shuffle(cards)
        hands.append((cards[:14], cards[14]))
    started = time.perf_counter()
    for hand, cut in hands:
        arrange(hand, joker=cut, profile="indian13/classic")
    return time.perf_counter() - started


def decision_times(deals: int, seed: int) -> tuple[SimReport, list[float]]:
    times: list[float] = []
    report = simulate(
        game=GAME, players=4, deals=deals, seed=seed, checks=False, bots=timed_bots(GAME, times)
    )
    return report, times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--bot-deals", type=int, default=100, help="deals of timed decisions")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    simulate(game=GAME, deals=30, seed=args.seed + 10_000, checks=False)  # warm-up, not timed
    report, calls, spent = counted_run(args.deals, args.seed, checks=False)
    rate = report.deals_per_second
    per_deal = report.actions / report.deals
    rest = report.seconds - spent
    print(
        f"simulate classic points, 4 bots, {report.deals} deals (seed {args.seed}), no checks: "
        f"{report.seconds:.2f} s, {rate:.1f} deals/s"
    )
    print(
        f"  {report.actions} actions ({per_deal:.1f} per deal), {calls} solver calls "
        f"({calls / report.deals:.1f} per deal), {report.drops} drops, "
        f"{report.declarations} declarations"
    )
    print(
        f"  the bots' solver calls {spent:.2f} s ({spent / report.seconds:.0%} of the time, "
        f"{spent / max(1, calls) * 1e6:.0f} us a call); the rest (engine, bots, house) "
        f"{rest:.2f} s, {report.deals / rest:.1f} deals/s without the solver"
    )
    solver = solver_baseline(calls, args.seed + 20_000)
    print(
        f"baseline solver: {calls} arrange calls on random 14-card hands: {solver:.2f} s; "
        f"the deals cost {report.seconds / solver:.2f}x that"
    )

    checked, checked_calls, checked_spent = counted_run(args.deals, args.seed + 1, checks=True)
    checked_rate = checked.deals_per_second
    checked_rest = checked.seconds - checked_spent
    print(
        f"simulate with every invariant checked: {checked.deals} deals (seed {args.seed + 1}): "
        f"{checked.seconds:.2f} s, {checked_rate:.1f} deals/s ({checked.checked} actions "
        f"checked, {checked.violation_count} violations); without checks "
        f"{rate / checked_rate:.1f}x faster"
    )
    print(
        f"  the bots' solver calls {checked_spent:.2f} s ({checked_calls} calls, "
        f"{checked_spent / checked.seconds:.0%} of the time); the rest {checked_rest:.2f} s, "
        f"{checked.deals / checked_rest:.1f} deals/s without the solver"
    )

    timed, times = decision_times(args.bot_deals, args.seed + 2)
    print(
        f"bot decisions, every bot.act(view) over {timed.deals} deals (seed {args.seed + 2}): "
        f"{len(times)} decisions, p50 {ms(statistics.median(times))}, "
        f"p99 {ms(percentile(times, 0.99))}, max {ms(max(times))}"
    )

    fast = rate >= TARGET
    checked_fast = checked_rate >= CHECKED_TARGET
    print(f"target >= {TARGET:.0f} deals/s without checks: {verdict(fast)} ({rate:.1f})")
    print(
        f"target >= {CHECKED_TARGET:.0f} deals/s with every invariant checked: "
        f"{verdict(checked_fast)} ({checked_rate:.1f})"
    )
    broken = checked.violation_count + report.violation_count + timed.violation_count
    if broken:
        print(f"VIOLATIONS: {broken} (invariants broken or actions refused)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
