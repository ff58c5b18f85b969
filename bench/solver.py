"""Benchmark of `rummyhall.melds.arrange` against issue 20's targets and a plain memoised search.

    python bench/solver.py [--quick] [--seed N]

Classes of hands: random deals (13 and 14 cards from 2 decks with 1 printed joker each, cut card
drawn from the rest of the shoe, profile indian13/classic; 21 and 22 cards from 3 decks with 1
printed joker each, marriage21) and meld-dense hands (3-5 neighbouring ranks, every copy of them in
the shoe, plus the printed jokers; cut card often one of those ranks, so many wild cards).

Targets (issue 20): random 13 cards median <= 15us and p99 <= 150us; dense 21 cards p99 <= 5ms
(100 hands: the p99 is the slowest but one); memory bounded (the RSS after 100,000 hands is
printed). The other classes keep the earlier targets.

Method. The solver memoises per-suit tables across calls, as a long-running server does; each
class is first warmed up on hands from a different seed, then measured on fresh hands, one call at
a time with `time.perf_counter`. As `timeit` does, the garbage collector is paused during each
timed call (and run between calls), so a collector pause is not billed to whichever hand it hit.

Baseline: tests/baseline_solver.py, a plain memoised search (the lowest card left, every meld it
can start, `functools.lru_cache` on the cards left and the joker pool; exact, tested against the
brute-force reference). It is warmed up on the same warm-up hands and timed on a prefix of the
same measured hands, as many as a time budget allows, in the same run; the solver's figures on
that prefix are printed beside it, with the median of the per-hand time ratios. The brute-force
reference (tests/reference_solver.py) stays in the tests as the judge of correctness.

Build: the run says whether the solver it measures is compiled (mypyc, see setup.py) or pure
Python. A compiled build is then measured again as pure Python in a fresh interpreter
(``RUMMYHALL_PURE=1``, this script with --pure-classes: the same warm-up, the same hands, the
classes and then the hints), and both are printed side by side with the ratio.

CPU time (``--cpu N``, instead of the rest): on a shared machine a wall-clock tail is mostly
the waits for a core. For the classes of issue 20's targets (random 13, dense 21), N fresh
interpreters each measure every hand's CPU time (``time.thread_time``, which a wait for a core
does not advance) after the same warm-up, and the figures are those of each hand's least time
over the N runs.

Memory: a fresh interpreter (this script with --memory) solves 100,000 random hands of the four
classes in turn and prints its resident set size (VmRSS, and the peak VmHWM, from
/proc/self/status) before and after, and the entries the solver's memos hold.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rummyhall import native
from rummyhall.cards import JOKER, Card, shoe
from rummyhall.melds import arrange, hint
from rummyhall.melds.solver import RESULT_MEMOS
from rummyhall.melds.suits import SUIT_MEMOS, Budget

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from baseline_solver import solve as baseline_solve

Hand = tuple[list[Card], Card]


@dataclass(frozen=True)
class Target:
    """Goals for one class of hands (None: no goal on that figure)."""

    median_us: float | None = None
    p99_us: float | None = None
    worst_ms: float | None = None

    def met(self, times: Sequence[float]) -> bool:
        return (
            (self.median_us is None or statistics.median(times) * 1e6 <= self.median_us)
            and (self.p99_us is None or percentile(times, 0.99) * 1e6 <= self.p99_us)
            and (self.worst_ms is None or max(times) * 1e3 <= self.worst_ms)
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


# Issue 20's targets: random 13 cards and dense 21 cards; the other classes keep the earlier ones.
TARGETS = {
    ("random", 13): Target(median_us=15, p99_us=150),
    ("random", 14): Target(median_us=60, p99_us=600),
    ("random", 21): Target(median_us=1000, p99_us=10000),
    ("random", 22): Target(median_us=1000, p99_us=10000),
    ("dense", 13): Target(worst_ms=5),
    ("dense", 14): Target(worst_ms=5),
    ("dense", 21): Target(p99_us=5000),
    ("dense", 22): Target(worst_ms=50),
}
HINT_TARGETS = {
    13: Target(median_us=300, p99_us=2000),
    14: Target(median_us=300, p99_us=2000),
    21: Target(worst_ms=10),
    22: Target(worst_ms=10),
}
MEMORY_HANDS = 100_000
"""Random hands the memory run solves (a quarter of each class)."""


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


def baseline_all(hands: Sequence[Hand], profile: str, budget_s: float) -> list[float]:
    """The baseline's time on a prefix of ``hands``, until ``budget_s`` seconds are spent."""
    times: list[float] = []
    spent = 0.0
    for hand, cut in hands:
        if spent > budget_s:
            break
        t = timed(lambda h=hand, c=cut: baseline_solve(h, c, profile))
        times.append(t)
        spent += t
    return times


def duration(seconds: float) -> str:
    """Microseconds below 10 ms, else milliseconds (the baseline's hands can take seconds)."""
    return f"{seconds * 1e6:>8.1f}us" if seconds < 0.01 else f"{seconds * 1e3:>8.1f}ms"


def figures(times: Sequence[float]) -> str:
    median, p99, worst = statistics.median(times), percentile(times, 0.99), max(times)
    return f"{duration(median)} {duration(p99)} {worst * 1e3:>8.2f}ms"


def baseline_line(label: str, ours: Sequence[float], base: Sequence[float]) -> str:
    """The baseline against the solver on the same hands (the prefix the baseline got to)."""
    n = len(base)
    mine = ours[:n]
    ratio = statistics.median(b / o for b, o in zip(base, mine, strict=True))
    p99_ratio = percentile(base, 0.99) / percentile(mine, 0.99)
    return (
        f"{label:<10} {n:>5} hands: baseline {figures(base)} | solver {figures(mine)}"
        f" | {ratio:6.1f}x per hand (median), p99 {p99_ratio:6.1f}x"
    )


def status() -> dict[str, int]:
    """VmRSS and VmHWM of this process in kB (ru_maxrss for both where /proc is missing)."""
    try:
        with open("/proc/self/status") as lines:
            return {
                key: int(value.split()[0])
                for key, value in (line.split(":", 1) for line in lines)
                if key in ("VmRSS", "VmHWM")
            }
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return {"VmRSS": peak, "VmHWM": peak}


CLASSES = [
    # size, decks, printed jokers per deck, profile, warm-up hands, measured, dense hands
    (13, 2, 1, "indian13/classic", 20000, 5000, 300),
    (14, 2, 1, "indian13/classic", 20000, 5000, 300),
    (21, 3, 1, "marriage21", 5000, 2000, 100),
    (22, 3, 1, "marriage21", 5000, 2000, 100),
]


def memory_run(hands: int, seed: int) -> None:
    """Solve ``hands`` random hands, a quarter of each class, and print the memory figures."""
    before = status()
    rng = random.Random(seed)
    started = time.perf_counter()
    each = hands // len(CLASSES)
    for size, decks, jokers, profile, *_ in CLASSES:
        for done in range(0, each, 1000):  # a thousand hands at a time: the list stays small
            for hand, cut in random_hands(rng, size, decks, jokers, min(1000, each - done)):
                arrange(hand, joker=cut, profile=profile)
    after = status()
    print(
        f"memory: {hands:,} random hands ({each:,} of each class) in"
        f" {time.perf_counter() - started:.1f}s: RSS {before['VmRSS'] / 1024:.0f} MB before,"
        f" {after['VmRSS'] / 1024:.0f} MB after (peak {after['VmHWM'] / 1024:.0f} MB);"
        f" the memos hold {memo_entries(SUIT_MEMOS):,} per-suit entries"
        f" (at most {2 * SUIT_MEMOS.limit:,}) and {memo_entries(RESULT_MEMOS):,} results"
        f" (at most {2 * RESULT_MEMOS.limit:,})"
    )


def memo_entries(budget: Budget) -> int:
    return sum(len(memo) for memo in budget.memos)


def build() -> str:
    """The build being measured: compiled (mypyc) or pure Python (rummyhall.native)."""
    if native.compiled():
        return "compiled (mypyc)"
    why = f"{native.PURE_SWITCH}=1" if native.pure_requested() else "no compiled build installed"
    return f"pure Python ({why})"


def measure_classes(
    scale: float, seed: int, *, baseline: bool, report: Callable[[str], None]
) -> tuple[dict[str, list[float]], list[str], int]:
    """Every class, warmed up then measured as the module's docstring says: the times of each
    class (by its label), the baseline's lines (when ``baseline``) and the targets not met.
    ``report`` gets each class's line as soon as it is measured."""
    failures = 0
    baseline_lines = []
    measured: dict[str, list[float]] = {}
    for size, decks, jokers, profile, warm, count, dense_count in CLASSES:
        rng = random.Random(seed * 100 + size)
        warm_rng = random.Random(seed * 100 + size + 50)
        warm_random = random_hands(warm_rng, size, decks, jokers, int(warm * scale))
        warm_dense = dense_hands(warm_rng, size, decks, jokers, int(dense_count * scale))
        for hand, cut in warm_random + warm_dense:
            arrange(hand, joker=cut, profile=profile)
        if baseline:
            # The baseline's memo gets a warm-up too, as long as a budget allows.
            baseline_all(warm_random, profile, 5 * scale + 1)
            baseline_all(warm_dense, profile, 5 * scale + 1)
        gc.collect()

        random_set = random_hands(rng, size, decks, jokers, int(count * scale))
        dense_set = dense_hands(rng, size, decks, jokers, int(dense_count * scale))
        for kind, hands in (("random", random_set), ("dense", dense_set)):
            times = solve_all(hands, profile)
            target = TARGETS[(kind, size)]
            ok = target.met(times)
            failures += not ok
            label = f"{kind} {size} ({profile})"
            measured[label] = times
            report(
                f"{label:<28} {len(times):>6} {figures(times)}"
                f"  {target} {'met' if ok else 'NOT MET'}"
            )
            if baseline:
                base = baseline_all(hands, profile, 20 * scale + 2)
                baseline_lines.append(baseline_line(f"{kind} {size}", times, base))
    return measured, baseline_lines, failures


def measure_hints(scale: float, seed: int) -> tuple[dict[str, list[float]], list[str], int]:
    """hint() on fresh random hands of each class, against arrange() on the same hands in the
    same run (hint calls arrange, whose result is then cached: the difference is the plan search
    and the layout): the times of each class (by its label), its lines and the targets not met."""
    measured: dict[str, list[float]] = {}
    lines = []
    failures = 0
    for size, decks, jokers, profile, _, count, _ in CLASSES:
        rng = random.Random(seed * 100 + size + 7)
        hands = random_hands(rng, size, decks, jokers, int(count * scale) // 5)
        base = solve_all(hands, profile)
        times = [timed(lambda h=h, c=c, p=profile: hint(h, joker=c, profile=p)) for h, c in hands]
        ratio = statistics.median(t / b for t, b in zip(times, base, strict=True))
        goal = HINT_TARGETS[size]
        ok = goal.met(times)
        failures += not ok
        label = f"hint {size} ({profile})"
        measured[label] = times
        lines.append(
            f"{label:<28} {len(times):>6} {figures(times)}"
            f"  {goal} {'met' if ok else 'NOT MET'};"
            f" arrange median {statistics.median(base) * 1e6:.1f}us on the same hands,"
            f" hint/arrange {ratio:.1f}x"
        )
    return measured, lines, failures


CPU_CLASSES = (("random", 13), ("dense", 21))
"""The classes of issue 20's targets, which ``--cpu`` measures."""


def cpu_class(kind: str, size: int, scale: float, seed: int) -> list[float]:
    """The CPU time (``time.thread_time``) of each hand of one class, warmed up and drawn as
    :func:`measure_classes` does."""
    _, decks, jokers, profile, warm, count, dense_count = next(c for c in CLASSES if c[0] == size)
    rng = random.Random(seed * 100 + size)
    warm_rng = random.Random(seed * 100 + size + 50)
    warm_random = random_hands(warm_rng, size, decks, jokers, int(warm * scale))
    warm_dense = dense_hands(warm_rng, size, decks, jokers, int(dense_count * scale))
    for hand, cut in warm_random + warm_dense:
        arrange(hand, joker=cut, profile=profile)
    gc.collect()
    random_set = random_hands(rng, size, decks, jokers, int(count * scale))
    dense_set = dense_hands(rng, size, decks, jokers, int(dense_count * scale))
    times = []
    for hand, cut in random_set if kind == "random" else dense_set:
        gc.disable()
        try:
            start = time.thread_time()
            arrange(hand, joker=cut, profile=profile)
            times.append(time.thread_time() - start)
        finally:
            gc.enable()
    return times


def cpu_figures(runs: int, quick: bool, seed: int) -> None:
    """Each class of :data:`CPU_CLASSES` in ``runs`` fresh interpreters: each hand's least CPU
    time over the runs, median / p99 / max, against the targets."""
    print(f"CPU time (time.thread_time) of each hand, the least of {runs} fresh interpreters:")
    for kind, size in CPU_CLASSES:
        command = [sys.executable, __file__, "--cpu-class", f"{kind}:{size}", "--seed", str(seed)]
        if quick:
            command.append("--quick")
        runs_times = [
            json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
            for _ in range(runs)
        ]
        least = [min(times) for times in zip(*runs_times, strict=True)]
        target = TARGETS[(kind, size)]
        label = f"{kind} {size}"
        print(
            f"{label:<28} {len(least):>6} {figures(least)}"
            f"  {target} {'met' if target.met(least) else 'NOT MET'} (CPU time)"
        )


def pure_figures(quick: bool, seed: int) -> dict[str, list[float]]:
    """The same classes and hints measured on the pure modules, in a fresh interpreter
    (``RUMMYHALL_PURE=1``): the same warm-up, the same hands; each class's times."""
    command = [sys.executable, __file__, "--pure-classes", "--seed", str(seed)]
    if quick:
        command.append("--quick")
    env = {**os.environ, native.PURE_SWITCH: "1"}
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    found: dict[str, list[float]] = json.loads(done.stdout)
    return found


def pure_line(label: str, compiled: Sequence[float], pure: Sequence[float]) -> str:
    median = statistics.median(pure) / statistics.median(compiled)
    p99 = percentile(pure, 0.99) / percentile(compiled, 0.99)
    return (
        f"{label:<28} pure {figures(pure)} | compiled {figures(compiled)}"
        f" | compiled {median:4.1f}x faster (median), p99 {p99:4.1f}x"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer hands (a smoke run)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--memory", type=int, metavar="HANDS", help=argparse.SUPPRESS)
    parser.add_argument("--pure-classes", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--cpu", type=int, metavar="N", help="CPU time of the target classes, least of N runs"
    )
    parser.add_argument("--cpu-class", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory:
        memory_run(args.memory, args.seed)
        return 0
    scale = 0.1 if args.quick else 1.0
    if args.cpu_class:
        kind, size = args.cpu_class.split(":")
        print(json.dumps(cpu_class(kind, int(size), scale, args.seed)))
        return 0
    if args.cpu:
        print(f"arrange() CPU time; solver build measured: {build()}")
        print(f"load average {os.getloadavg()[0]:.2f} at the start")
        cpu_figures(args.cpu, args.quick, args.seed)
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
        return 0
    if args.pure_classes:
        times, _, _ = measure_classes(scale, args.seed, baseline=False, report=lambda _: None)
        times.update(measure_hints(scale, args.seed)[0])
        print(json.dumps(times))
        return 0

    print("arrange() benchmark: one core; times in microseconds (us) or ms")
    print(
        f"python {sys.version.split()[0]}, seed {args.seed}, quick={args.quick},"
        f" load average {os.getloadavg()[0]:.2f} at the start"
    )
    print(f"solver build measured: {build()}\n")
    header = f"{'class':<28} {'hands':>6} {'median':>10} {'p99':>10} {'max':>10}  target"
    print(header)
    print("-" * len(header))
    measured, baseline_lines, failures = measure_classes(
        scale, args.seed, baseline=True, report=print
    )
    hint_times, hint_lines, hint_failures = measure_hints(scale, args.seed)
    measured.update(hint_times)
    failures += hint_failures
    print("\nhint() (the beginner's partial arrangement), random hands:")
    for line in hint_lines:
        print(line)
    print(
        "\nbaseline (tests/baseline_solver.py, a plain memoised search) on the same hands,"
        " median / p99 / max:"
    )
    for line in baseline_lines:
        print(line)
    if native.compiled():
        print(
            "\nthe pure modules (RUMMYHALL_PURE=1, a fresh interpreter, the same warm-up and"
            " hands) against the compiled build above, median / p99 / max:"
        )
        for label, pure in pure_figures(args.quick, args.seed).items():
            print(pure_line(label, measured[label], pure))
    print()
    hands = MEMORY_HANDS // 10 if args.quick else MEMORY_HANDS
    # A fresh interpreter: the figures are the solver's alone, not the baseline's memo too.
    subprocess.run(
        [sys.executable, __file__, "--memory", str(hands), "--seed", str(args.seed)], check=True
    )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    print(f"\n{'all targets met' if not failures else f'{failures} target(s) NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
