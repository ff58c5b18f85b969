"""Benchmark of `rummyhall.melds.arrange` against the issue's targets and the brute-force reference.

    python bench/solver.py [--quick] [--seed N]

Classes of hands: random deals (13 and 14 cards from 2 decks with 1 printed joker each, cut card
drawn from the rest of the shoe, profile indian13/classic; 21 and 22 cards from 3 decks with 1
printed joker each, marriage21) and meld-dense hands (3-5 neighbouring ranks, every copy of them in
the shoe, plus the printed jokers; cut card often one of those ranks, so many wild cards).

Method. The solver memoises per-suit tables across calls, as a long-running server does; each
class is first warmed up on hands from a different seed, then measured on fresh hands, one call at
a time with `time.perf_counter`. As `timeit` does, the garbage collector is paused during each
timed call (and run between calls), so a collector pause is not billed to whichever hand it hit.
The brute-force reference (tests/reference_solver.py) is timed on a subset of the same hands in
the same run; the ratio is reference time / solver time per hand (median of the ratios).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rummyhall.cards import JOKER, Card, shoe
from rummyhall.melds import arrange, hint

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from reference_solver import solve as reference_solve

Hand = tuple[list[Card], Card]


@dataclass(frozen=True)
class Target:
    median_us: float
    p99_us: float
    worst_dense_ms: float


TARGETS = {13: Target(60, 600, 5), 14: Target(60, 600, 5), 21: Target(1000, 10000, 50)}
TARGETS[22] = TARGETS[21]


@dataclass(frozen=True)
class HintTarget:
    """hint() on random hands: 13/14 cards by median and p99, Marriage by its worst hand."""

    median_us: float | None = None
    p99_us: float | None = None
    worst_ms: float | None = None

    def met(self, median: float, p99: float, worst: float) -> bool:
        return (
            (self.median_us is None or median * 1e6 <= self.median_us)
            and (self.p99_us is None or p99 * 1e6 <= self.p99_us)
            and (self.worst_ms is None or worst * 1e3 <= self.worst_ms)
        )

    def __str__(self) -> str:
        parts = []
        if self.median_us is not None:
            parts.append(f"median<={self.median_us:g}us")
        if self.p99_us is not None:
            parts.append(f"p99<={self.p99_us:g}us")
        if self.worst_ms is not None:
            parts.append(f"max<={self.worst_ms:g}ms")
        return " ".join(parts)


HINT_TARGETS = {13: HintTarget(300, 2000), 14: HintTarget(300, 2000), 21: HintTarget(worst_ms=10)}
HINT_TARGETS[22] = HINT_TARGETS[21]


def random_hands(rng: random.Random, size: int, decks: int, jokers: int, n: int) -> list[Hand]:
    hands = []
    for _ in range(n):
        cards = shoe(decks, jokers)
        rng.shuffle(cards)
        hands.append((cards[:size], cards[size]))
    return hands


def dense_hands(rng: random.Random, size: int, decks: int, jokers: int, n: int) -> list[Hand]:
    hands: list[Hand] = []
    while len(hands) < n:
        width = rng.randint(3, 5)
        low = rng.randint(1, 14 - width)
        ranks = set(range(low, low + width))
        pool = [c for c in shoe(decks, jokers) if c.is_joker or c.rank in ranks]
        if len(pool) <= size:
            continue
        rng.shuffle(pool)
        hand = pool[:size]
        choice = rng.random()
        if choice < 0.5:
            cut = pool[size]  # a rank of the hand is wild
        elif choice < 0.6:
            cut = JOKER  # aces wild
        else:
            cut = rng.choice(shoe(1, 0))
        hands.append((hand, cut))
    return hands


def timed(fn: Callable[[], object]) -> float:
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def solve_all(hands: Sequence[Hand], profile: str) -> list[float]:
    times = []
    for hand, cut in hands:
        times.append(timed(lambda h=hand, c=cut: arrange(h, joker=c, profile=profile)))
    return times


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def reference_ratio(
    hands: Sequence[Hand], ours: Sequence[float], profile: str, budget_s: float
) -> tuple[int, float, float, float]:
    """(hands timed, median reference time, median solver time, median ratio) on a prefix of
    ``hands`` until ``budget_s`` seconds of reference time are spent."""
    ref_times: list[float] = []
    spent = 0.0
    for hand, cut in hands:
        if spent > budget_s:
            break
        t = timed(lambda h=hand, c=cut: reference_solve(h, c, profile))
        ref_times.append(t)
        spent += t
    n = len(ref_times)
    ratios = [r / o for r, o in zip(ref_times, ours[:n], strict=True)]
    return n, statistics.median(ref_times), statistics.median(ours[:n]), statistics.median(ratios)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer hands (a smoke run)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0

    classes = [
        (13, 2, 1, "indian13/classic", 20000, 5000, 300),
        (14, 2, 1, "indian13/classic", 20000, 5000, 300),
        (21, 3, 1, "marriage21", 5000, 2000, 100),
        (22, 3, 1, "marriage21", 5000, 2000, 100),
    ]
    print("arrange() benchmark: pure Python, one core; times in microseconds (us) or ms")
    print(f"python {sys.version.split()[0]}, seed {args.seed}, quick={args.quick}\n")
    header = f"{'class':<28} {'hands':>6} {'median':>10} {'p99':>10} {'max':>10}  target"
    print(header)
    print("-" * len(header))
    failures = 0
    ratio_lines = []
    for size, decks, jokers, profile, warm, count, dense_count in classes:
        rng = random.Random(args.seed * 100 + size)
        warm_rng = random.Random(args.seed * 100 + size + 50)
        target = TARGETS[size]
        for hand, cut in random_hands(warm_rng, size, decks, jokers, int(warm * scale)):
            arrange(hand, joker=cut, profile=profile)
        for hand, cut in dense_hands(warm_rng, size, decks, jokers, int(dense_count * scale)):
            arrange(hand, joker=cut, profile=profile)
        gc.collect()

        hands = random_hands(rng, size, decks, jokers, int(count * scale))
        times = solve_all(hands, profile)
        median, p99, worst = statistics.median(times), percentile(times, 0.99), max(times)
        ok = median * 1e6 <= target.median_us and p99 * 1e6 <= target.p99_us
        failures += not ok
        print(
            f"{f'random {size} ({profile})':<28} {len(times):>6} {median * 1e6:>8.1f}us"
            f" {p99 * 1e6:>8.1f}us {worst * 1e3:>8.2f}ms"
            f"  median<={target.median_us:g}us p99<={target.p99_us:g}us"
            f" {'ok' if ok else 'MISSED'}"
        )
        n, ref_med, our_med, ratio = reference_ratio(hands, times, profile, 20 * scale + 2)
        ratio_lines.append(
            f"{f'random {size}':<12} {n:>5} hands: reference median {ref_med * 1e6:9.1f}us,"
            f" solver {our_med * 1e6:7.1f}us, ratio {ratio:7.1f}x"
        )

        dense = dense_hands(rng, size, decks, jokers, int(dense_count * scale))
        dense_times = solve_all(dense, profile)
        worst_dense = max(dense_times)
        ok = worst_dense * 1e3 <= target.worst_dense_ms
        failures += not ok
        print(
            f"{f'dense {size} ({profile})':<28} {len(dense_times):>6}"
            f" {statistics.median(dense_times) * 1e6:>8.1f}us"
            f" {percentile(dense_times, 0.99) * 1e6:>8.1f}us {worst_dense * 1e3:>8.2f}ms"
            f"  worst<={target.worst_dense_ms:g}ms {'ok' if ok else 'MISSED'}"
        )
        n, ref_med, our_med, ratio = reference_ratio(dense, dense_times, profile, 20 * scale + 2)
        ratio_lines.append(
            f"{f'dense {size}':<12} {n:>5} hands: reference median {ref_med * 1e6:9.1f}us,"
            f" solver {our_med * 1e6:7.1f}us, ratio {ratio:7.1f}x"
        )
    hint_lines = []
    for size, decks, jokers, profile, _, count, _ in classes:
        # hint() on fresh random hands, against arrange() on the same hands in the same run
        # (hint calls arrange, whose result is then cached: the difference is the plan search).
        rng = random.Random(args.seed * 100 + size + 7)
        hands = random_hands(rng, size, decks, jokers, int(count * scale) // 5)
        base = solve_all(hands, profile)
        times = [timed(lambda h=h, c=c, p=profile: hint(h, joker=c, profile=p)) for h, c in hands]
        median, p99, worst = statistics.median(times), percentile(times, 0.99), max(times)
        ratio = statistics.median(t / b for t, b in zip(times, base, strict=True))
        goal = HINT_TARGETS[size]
        ok = goal.met(median, p99, worst)
        failures += not ok
        hint_lines.append(
            f"{f'hint {size} ({profile})':<28} {len(times):>6}"
            f" {median * 1e6:>8.1f}us {p99 * 1e6:>8.1f}us {worst * 1e3:>8.2f}ms"
            f"  {goal} {'ok' if ok else 'MISSED'};"
            f" arrange median {statistics.median(base) * 1e6:.1f}us on the same hands,"
            f" hint/arrange {ratio:.1f}x"
        )
    print("\nhint() (the beginner's partial arrangement), random hands:")
    for line in hint_lines:
        print(line)
    print("\nbrute-force reference on the same hands (median of per-hand time ratios):")
    for line in ratio_lines:
        print(line)
    print(f"\n{'all targets met' if not failures else f'{failures} target(s) missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
