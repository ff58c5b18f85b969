"""The hints' plan search (rummyhall.melds.plans): what its memos may and may not change.

A hint's searches share a :class:`HandMemo` (the lower bounds and the moves of the walks, keyed by
the unplaced cards): sharing it must give exactly the plans that searches with a memo each give,
on random and dense hands of every profile, cards to throw included. The shared memo of the
groups a card can start stays within its bound however many keys it sees.
"""

from __future__ import annotations

import random

import pytest

from rummyhall.cards import JOKER, Card, shoe
from rummyhall.melds import Wilds, arrange, get_profile
from rummyhall.melds.plans import HandMemo, Memo, Plan, find_plan

# (profile, decks, printed jokers per deck, hand size, hands)
CASES = [
    ("indian13/classic", 2, 1, 14, 150),
    ("indian13/vengala", 2, 2, 14, 100),
    ("marriage21", 3, 1, 22, 40),
    ("indian13/classic", 2, 1, 13, 100),
]


def deals(decks: int, jokers: int, size: int, n: int, seed: int) -> list[tuple[list[Card], Card]]:
    """Random deals, and as many meld-dense ones (a few neighbouring ranks, every copy)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cards = shoe(decks, jokers)
        rng.shuffle(cards)
        out.append((cards[:size], cards[size]))
    while len(out) < 2 * n:
        low = rng.randint(1, 10)
        pool = [c for c in shoe(decks, jokers) if c.is_joker or low <= c.rank < low + 4]
        if len(pool) > size:
            rng.shuffle(pool)
            out.append((pool[:size], pool[size] if rng.random() < 0.5 else JOKER))
    return out


def shown(plan: Plan) -> tuple[object, ...]:
    groups = [(g.kind, g.codes, g.gaps, g.size, g.low) for g in plan.groups]
    return plan.key, groups, plan.loose, plan.pool, plan.pure


@pytest.mark.parametrize(
    ("profile", "decks", "jokers", "size", "n"), CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES]
)
def test_a_shared_hand_memo_gives_the_plans_of_separate_ones(
    profile: str, decks: int, jokers: int, size: int, n: int
) -> None:
    prof = get_profile(profile)
    compared = 0
    for hand, cut in deals(decks, jokers, size, n, seed=size):
        best = arrange(hand, joker=cut, profile=prof)
        if best.declarable:
            continue
        wilds = Wilds.of(cut, prof)
        codes = [card.code for card in hand]
        throw = len(hand) == prof.hand_size + 1
        memo = HandMemo(codes)
        first = find_plan(codes, best, wilds, prof, discard_mode=throw, memo=memo)
        alone = find_plan(codes, best, wilds, prof, discard_mode=throw)
        assert shown(first) == shown(alone), (hand, cut)
        compared += 1
        if not throw or not first.loose:
            continue
        # The second search of a hand with a card to throw: the cards kept, seeded with the
        # first plan, its memo the first one's (as hint() does) or its own.
        drop = first.loose[0]
        kept_cards = list(hand)
        kept_cards.remove(next(card for card in hand if card.code == drop))
        kept = [card.code for card in kept_cards]
        best_kept = arrange(kept_cards, joker=cut, profile=prof)
        seed = (first, drop)
        second = find_plan(kept, best_kept, wilds, prof, discard_mode=False, seed=seed, memo=memo)
        again = find_plan(kept, best_kept, wilds, prof, discard_mode=False, seed=seed)
        assert shown(second) == shown(again), (hand, cut, drop)
    assert compared > n // 2


def test_the_memo_of_groups_stays_bounded_and_answers_what_it_keeps() -> None:
    memo: Memo[int] = Memo(1_000)
    rng = random.Random(3)
    for _ in range(20_000):
        key = rng.getrandbits(40)
        memo.put(key, key, key + 1)
        assert memo.get(key, key) == key + 1
        assert len(memo) <= 1_000
    # Each shard was cleared alone when full: all of them still hold their latest entries.
    assert all(memo.shards)
    assert memo.get(-1, -1) is None
