"""Benchmark of Rummy 51 against 13-card classic rummy, in one run: games per second of
``simulate``, the bot's time per decision, and the exact best opening of a 15-card hand.

    python bench/rummy51.py [--games 300] [--bot-games 60] [--hands 5000] [--seed 1] [--quick]

Targets (one core): Rummy 51 ``simulate(players=4, checks=False)`` at least 30 complete games per
second; the bot's p99 decision time under 20 ms; ``best_opening`` of a random 15-card hand (two
packs and four jokers) p99 under 2 ms. Each figure is printed next to the 13-card game's, measured
the same way in the same run (deals per second, its bot's decisions, the solver's ``arrange`` on
a random 14-card hand), with the ratio: these machines are noisy, and a ratio says more than a
figure. The exit status is 1 when a target is missed.

Method: as bench/marriage21.py (bench/timing.py: timed bots, the garbage collector paused during
each timed call). The openings are timed on random hands and on dense ones (every card drawn from
five neighbouring ranks, where the most groups overlap), each after a warm-up on other hands.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from rummyhall.cards import Card, shoe
from rummyhall.games.rummy51.opening import best_opening
from rummyhall.melds import arrange
from rummyhall.sim import SimReport, simulate
from timing import ms, percentile, timed_bots, verdict

GAME = "rummy51"
CLASSIC = "indian13"
GAMES_TARGET = 30.0
"""Rummy 51 games per second, at least."""
BOT_P99_TARGET_MS = 20.0
OPENING_P99_TARGET_MS = 2.0


def games_run(game: str, games: int, seed: int) -> SimReport:
    simulate(game=game, deals=max(5, games // 10), seed=seed + 10_000, checks=False)  # warm-up
    return simulate(game=game, players=4, deals=games, seed=seed, checks=False)


def decision_times(game: str, games: int, seed: int) -> list[float]:
    times: list[float] = []
    report = simulate(
        game=game, players=4, deals=games, seed=seed, checks=False, bots=timed_bots(game, times)
    )
    if report.violation_count:
        raise SystemExit(f"{game}: the bots' game broke an invariant: {report.violations[:3]}")
    return times


def random_hands(rng: random.Random, size: int, count: int) -> list[list[Card]]:
    hands = []
    for _ in range(count):
        cards = shoe(2, 2)
        rng.shuffle(cards)
        hands.append(cards[:size])
    return hands


def dense_hands(rng: random.Random, size: int, count: int) -> list[list[Card]]:
    """Hands from five neighbouring ranks of every suit (both packs) and the jokers."""
    hands = []
    for _ in range(count):
        low = rng.randint(1, 9)
        pool = [c for c in shoe(2, 2) if c.is_joker or low <= c.rank < low + 5]
        rng.shuffle(pool)
        hands.append(pool[:size])
    return hands


def timed(call: Callable[[], object]) -> float:
    gc.disable()
    try:
        started = time.perf_counter()
        call()
        return time.perf_counter() - started
    finally:
        gc.enable()


def opening_times(hands: Sequence[list[Card]], warm: Sequence[list[Card]]) -> list[float]:
    for hand in warm:
        best_opening(hand)
    return [timed(lambda hand=hand: best_opening(hand)) for hand in hands]  # type: ignore[misc]


def arrange_times(rng: random.Random, count: int) -> list[float]:
    hands = []
    for _ in range(2 * count):
        cards = shoe(2, 1)
        rng.shuffle(cards)
        hands.append((cards[:14], cards[14]))
    for hand, cut in hands[count:]:  # warm-up, other hands
        arrange(hand, joker=cut, profile="indian13/classic")
    return [
        timed(lambda hand=hand, cut=cut: arrange(hand, joker=cut, profile="indian13/classic"))  # type: ignore[misc]
        for hand, cut in hands[:count]
    ]


def line(name: str, times: Sequence[float]) -> str:
    return (
        f"  {name:<30} {len(times):>6}: p50 {ms(statistics.median(times))}, "
        f"p99 {ms(percentile(times, 0.99))}, max {ms(max(times))}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games timed for games/s")
    parser.add_argument("--bot-games", type=int, default=60, help="games of timed decisions")
    parser.add_argument("--hands", type=int, default=5000, help="hands of each class")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a tenth of everything (a smoke run)")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    games = max(3, int(args.games * scale))
    bot_games = max(2, int(args.bot_games * scale))
    hands = max(50, int(args.hands * scale))

    print("Rummy 51 against 13-card classic rummy: one core, pure Python")
    print(f"python {sys.version.split()[0]}, seed {args.seed}, quick={args.quick}\n")
    misses = 0

    classic = games_run(CLASSIC, games, args.seed)
    r51 = games_run(GAME, games, args.seed)
    print(f"(a) simulate, 4 bots, no checks ({games} each, seed {args.seed}):")
    for name, run in (("13-card classic (deals)", classic), ("Rummy 51 (games)", r51)):
        rate = run.deals / run.seconds
        print(
            f"  {name:<24} {run.deals:>5} in {run.seconds:6.2f} s: {rate:6.1f}/s "
            f"({run.actions / run.deals:.1f} actions each)"
        )
    rate = r51.deals / r51.seconds
    ok = rate >= GAMES_TARGET
    misses += not ok
    print(
        f"  Rummy 51 games/classic deals: {rate / (classic.deals / classic.seconds):.2f}x; "
        f"target >= {GAMES_TARGET:.0f} games/s: {verdict(ok)}"
    )

    print(f"\n(b) bot decision time, every bot.act(view) of 4 bots over {bot_games} games/deals:")
    classic_times = decision_times(CLASSIC, bot_games, args.seed + 1)
    r51_times = decision_times(GAME, bot_games, args.seed + 1)
    print(line("13-card classic", classic_times))
    print(line("Rummy 51", r51_times))
    p99 = percentile(r51_times, 0.99)
    ok = p99 * 1e3 < BOT_P99_TARGET_MS
    misses += not ok
    print(
        f"  Rummy 51/classic p99: {p99 / percentile(classic_times, 0.99):.2f}x; "
        f"target p99 < {BOT_P99_TARGET_MS:.0f} ms: {verdict(ok)}"
    )

    rng = random.Random(args.seed)
    print(f"\n(c) the exact best opening of a 15-card hand, {hands} hands each (warmed up):")
    baseline = arrange_times(rng, hands)
    random_times = opening_times(random_hands(rng, 15, hands), random_hands(rng, 15, hands))
    dense_times = opening_times(dense_hands(rng, 15, hands), dense_hands(rng, 15, hands))
    print(line("arrange, 14 cards (classic)", baseline))
    print(line("best_opening, random 15", random_times))
    print(line("best_opening, dense 15", dense_times))
    p99 = max(percentile(random_times, 0.99), percentile(dense_times, 0.99))
    ok = p99 * 1e3 < OPENING_P99_TARGET_MS
    misses += not ok
    base = percentile(baseline, 0.99)
    print(
        f"  best opening/arrange p99: {percentile(random_times, 0.99) / base:.2f}x (random), "
        f"{percentile(dense_times, 0.99) / base:.2f}x (dense); "
        f"target p99 < {OPENING_P99_TARGET_MS:.0f} ms: {verdict(ok)}"
    )
    print("\nall targets met" if not misses else f"\n{misses} target(s) NOT MET")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
