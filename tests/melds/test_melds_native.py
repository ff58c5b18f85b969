"""The compiled build of the solver (setup.py, rummyhall.native) against its pure sources
(tests/test_native.py checks the switch and the build, and plays whole games both ways).

The compiled modules must give exactly what the pure ones give: the same penalty, declarable,
kinds, groups, leftover, discard and 2-point groups, down to which physical card lands where, on
random and dense hands of every profile, discards included; and the same hints on those hands
(every group's cards, role, kind, needs and label, the distance, discard, reason, summary and
shapes); and the same verdicts of ``check`` (kinds.py is compiled too) on two groupings of each
hand, the solver's and a random split. The pure modules are reached through
``RUMMYHALL_PURE=1`` in a subprocess (an extension module beside its ``.py`` wins at import
otherwise): this file, run as a script, prints the pure results. Under CI=true the build must
be compiled; elsewhere a pure build (no C compiler) still runs every comparison, pure against
pure.

    python tests/melds/test_melds_native.py   # the results of this interpreter's build, as JSON
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from rummyhall import native
from rummyhall.cards import JOKER, Card, shoe
from rummyhall.melds import Arrangement, Hint, HintGroup, Verdict, arrange, check, hint

ROOT = Path(__file__).resolve().parents[2]

# (profile, decks, printed jokers per deck, hand size, random hands, dense hands)
CASES = [
    ("indian13/classic", 2, 1, 13, 400, 60),
    ("indian13/classic", 2, 1, 14, 300, 60),
    ("indian13/vengala", 2, 2, 13, 200, 40),
    ("indian13/vengala", 3, 2, 14, 200, 40),
    ("marriage21", 3, 1, 21, 120, 15),
    ("marriage21", 3, 1, 22, 100, 12),
]

Encoded = list[object]


def deals() -> list[tuple[str, list[Card], Card]]:
    """Random deals and meld-dense hands (a few neighbouring ranks, every copy of them, the
    printed jokers; the cut card often one of those ranks), the same in every process."""
    rng = random.Random(20)
    out: list[tuple[str, list[Card], Card]] = []
    for profile, decks, jokers, size, n_random, n_dense in CASES:
        for _ in range(n_random):
            cards = shoe(decks, jokers)
            rng.shuffle(cards)
            out.append((profile, cards[:size], cards[size]))
        dense = 0
        while dense < n_dense:
            width = rng.randint(3, 5)
            low = rng.randint(1, 14 - width)
            pool = [c for c in shoe(decks, jokers) if c.is_joker or low <= c.rank < low + width]
            if len(pool) <= size:
                continue
            rng.shuffle(pool)
            pick = rng.random()
            cut = pool[size] if pick < 0.5 else JOKER if pick < 0.6 else rng.choice(shoe(1, 0))
            out.append((profile, pool[:size], cut))
            dense += 1
    return out


def encode(hand: Sequence[Card], result: Arrangement) -> Encoded:
    """A result with each card as its place in ``hand`` (the physical card, not its value)."""
    place = {id(card): i for i, card in enumerate(hand)}

    def places(cards: Sequence[Card]) -> list[int]:
        return [place[id(card)] for card in cards]

    return [
        result.penalty,
        result.declarable,
        [kind.value for kind in result.kinds],
        [places(group) for group in result.groups],
        places(result.leftover),
        None if result.discard is None else place[id(result.discard)],
        None
        if result.two_point_groups is None
        else [places(group) for group in result.two_point_groups],
    ]


def encode_hint(hand: Sequence[Card], found: Hint) -> Encoded:
    """A hint with each card as its place in ``hand``, as :func:`encode` does."""
    place = {id(card): i for i, card in enumerate(hand)}

    def group(shown: HintGroup) -> Encoded:
        cards = [place[id(card)] for card in shown.cards]
        needs = [card.code for card in shown.needs]
        return [cards, shown.role.value, shown.kind.value, needs, shown.label]

    return [
        [group(g) for g in found.groups],
        found.distance,
        found.declarable,
        found.penalty,
        None if found.discard is None else place[id(found.discard)],
        found.reason,
        found.summary,
        [[shape.name, shape.cards, shape.label] for shape in found.shapes],
    ]


def groupings(hand: Sequence[Card], cut: Card, profile: str) -> list[list[Card]]:
    """Two groupings of ``hand`` to judge: the solver's (its groups, then the leftover as one
    group) and a random split into groups of 1 to 5 cards, the same in every process."""
    found = arrange(hand, joker=cut, profile=profile)
    solved = [list(group) for group in found.groups] + [list(found.leftover)]
    rng = random.Random(" ".join(map(str, hand)))
    cards = list(hand)
    rng.shuffle(cards)
    split: list[list[Card]] = []
    while cards:
        size = rng.randint(1, 5)
        split.append(cards[:size])
        cards = cards[size:]
    return [solved, split]


def encode_check(hand: Sequence[Card], verdict: Verdict) -> Encoded:
    """A verdict with each card as its place in ``hand``, as :func:`encode` does."""
    place = {id(card): i for i, card in enumerate(hand)}
    return [
        [
            [[place[id(c)] for c in g.cards], g.kind.value, g.points, g.counted]
            for g in verdict.groups
        ],
        verdict.declarable,
        verdict.score,
        verdict.requirement,
        verdict.two_point,
        verdict.reason,
    ]


def results() -> dict[str, list[Encoded]]:
    return {
        "arrange": [encode(hand, arrange(hand, joker=cut, profile=p)) for p, hand, cut in deals()],
        "hint": [encode_hint(hand, hint(hand, joker=cut, profile=p)) for p, hand, cut in deals()],
        "check": [
            [encode_check(hand, check(g, joker=cut, profile=p)) for g in groupings(hand, cut, p)]
            for p, hand, cut in deals()
        ],
    }


def run_pure(code: str) -> str:
    env = {**os.environ, native.PURE_SWITCH: "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@functools.cache
def both_builds() -> tuple[dict[str, list[Encoded]], dict[str, list[Encoded]]]:
    """The results of this process's build and of the pure modules (one subprocess for all)."""
    pure = json.loads(
        run_pure(f"import runpy; runpy.run_path({str(Path(__file__))!r}, None, '__main__')")
    )
    ours = json.loads(json.dumps(results()))  # lists, as the JSON of the pure run
    return ours, pure


@pytest.mark.parametrize("what", ["arrange", "hint", "check"])
def test_compiled_and_pure_give_the_same_results(what: str) -> None:
    everything, everything_pure = both_builds()
    ours, pure = everything[what], everything_pure[what]
    assert len(pure) == len(ours) == len(deals())
    differ = [i for i, (a, b) in enumerate(zip(ours, pure, strict=True)) if a != b]
    if differ:
        shown = []
        for i in differ[:5]:
            profile, hand, cut = deals()[i]
            shown.append(f"{profile} {' '.join(map(str, hand))} cut {cut}: {ours[i]} != {pure[i]}")
        pytest.fail(
            f"{len(differ)} hands differ in {what} (compiled != pure):\n" + "\n".join(shown)
        )


if __name__ == "__main__":
    print(json.dumps(results()))
