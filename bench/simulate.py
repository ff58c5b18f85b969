"""Benchmark of `rummyhall simulate`: complete deals per second of 4 bots at a classic points
table, the figure the issue asks for (at least 30 on one core, with `--no-checks`).

    python bench/simulate.py [--deals 300] [--seed 1]

Method. A short warm-up on other deals builds the solver's per-suit tables, as a running server
has them; then `simulate(..., checks=False)` plays the deals, timed as a whole, and the solver
calls the bots make are counted (calls the bots' memo answers are not). Two baselines are measured
in the same run, because these machines are noisy and a ratio says more than a figure:

* solver: as many `arrange` calls as the bots made, on random 14-card hands of fresh deals: what
  the deals would cost if they were nothing but solver calls on random hands;
* checks: as many deals again (from another seed) with every invariant checked after every action,
  `simulate`'s default.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

import rummyhall.games.rummy.bot as bot_module
from rummyhall.cards import shoe
from rummyhall.melds import Arrangement, arrange
from rummyhall.sim import SimReport, simulate

TARGET = 30.0


def counted_run(deals: int, seed: int) -> tuple[SimReport, int]:
    """simulate without checks, counting the solver calls of the bots."""
    calls = 0

    def counting(*args: Any, **kwargs: Any) -> Arrangement:
        nonlocal calls
        calls += 1
        return arrange(*args, **kwargs)

    setattr(bot_module, "arrange", counting)  # noqa: B010 (a module attribute, on purpose)
    try:
        report = simulate(deals=deals, seed=seed, players=4, checks=False)
    finally:
        setattr(bot_module, "arrange", arrange)  # noqa: B010
    return report, calls


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    simulate(deals=30, seed=args.seed + 10_000, checks=False)  # warm-up, not timed
    report, calls = counted_run(args.deals, args.seed)
    per_deal = report.actions / report.deals
    verdict = "met" if report.deals_per_second >= TARGET else "NOT MET"
    print(
        f"simulate classic points, 4 bots, {report.deals} deals (seed {args.seed}), no checks: "
        f"{report.seconds:.2f} s, {report.deals_per_second:.1f} deals/s "
        f"(target >= {TARGET:.0f}: {verdict})"
    )
    print(
        f"  {report.actions} actions ({per_deal:.1f} per deal), {calls} solver calls "
        f"({calls / report.deals:.1f} per deal), {report.drops} drops, "
        f"{report.declarations} declarations"
    )
    solver = solver_baseline(calls, args.seed + 20_000)
    print(
        f"baseline solver: {calls} arrange calls on random 14-card hands: {solver:.2f} s; "
        f"the deals cost {report.seconds / solver:.2f}x that"
    )
    checked = simulate(deals=args.deals, seed=args.seed + 1, players=4, checks=True)
    print(
        f"baseline checks: {checked.deals} deals (seed {args.seed + 1}) with every invariant "
        f"checked: {checked.seconds:.2f} s, {checked.deals_per_second:.1f} deals/s; "
        f"without checks {report.deals_per_second / checked.deals_per_second:.1f}x faster "
        f"({checked.checked} actions checked, {checked.violation_count} violations)"
    )
    return 0 if report.deals_per_second >= TARGET and not checked.violation_count else 1


if __name__ == "__main__":
    sys.exit(main())
