"""The rummy bot's shortcuts (:attr:`RummyBot.shortcuts`): what it tells from the cards alone
must be what the solver would say, and the bot must send exactly the same actions with and
without them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rummyhall import catalog
from rummyhall.bots import Bot
from rummyhall.cards import Card, parse_cards, shoe
from rummyhall.games.rummy import bot as rummy_bot
from rummyhall.games.rummy.bot import RummyBot, may_declare, may_hold_pure, may_meld
from rummyhall.melds import Wilds, arrange, get_profile
from rummyhall.sim import simulate

PROFILES = ("indian13/classic", "indian13/vengala", "marriage21")


def wild_codes(cut: Card, profile: str) -> frozenset[int]:
    return Wilds.of(cut, get_profile(profile)).codes


def dense_hand(rng: random.Random, cards: list[Card], size: int) -> list[Card]:
    """A hand from a few ranks and suits, so that groups are likely (random hands rarely meld)."""
    ranks = set(rng.sample(range(1, 14), rng.randint(4, 8)))
    near = [card for card in cards if card.rank in ranks or card.suit is None]
    return rng.sample(near, size) if len(near) >= size else rng.sample(cards, size)


def hands(profile: str, count: int, seed: int) -> list[tuple[list[Card], Card]]:
    """(hand of the hand size, cut card) pairs from the profile's shoe, half of them dense."""
    rng = random.Random(seed)
    size = get_profile(profile).hand_size
    decks = 3 if profile == "marriage21" else 2
    found = []
    for index in range(count):
        cards = shoe(decks, 1 if profile == "marriage21" else 2)
        rng.shuffle(cards)
        cut, rest = cards[0], cards[1:]
        hand = dense_hand(rng, rest, size + 1) if index % 2 else rest[: size + 1]
        found.append((hand, cut))
    return found


@pytest.mark.parametrize("profile", PROFILES)
def test_a_card_that_may_not_meld_stays_loose(profile: str) -> None:
    proved = 0
    for hand, cut in hands(profile, 150, seed=1):
        wild = wild_codes(cut, profile)
        top, held = hand[-1], hand[:-1]
        if top.code in wild or may_meld(top, held, wild):
            continue
        proved += 1
        after = arrange([*held, top], joker=cut, profile=profile)
        assert not any(top in group for group in after.groups), (held, top, cut)
        before = arrange(held, joker=cut, profile=profile)
        assert after.declarable == before.declarable
    assert proved > (0 if profile == "marriage21" else 10)  # Marriage: many wild cards


@pytest.mark.parametrize("profile", PROFILES)
def test_hands_that_may_not_declare_or_hold_a_pure_sequence(profile: str) -> None:
    no_declaration = no_pure = 0
    for hand, cut in hands(profile, 150, seed=2):
        wild = wild_codes(cut, profile)
        held = hand[:-1]
        best = arrange(held, joker=cut, profile=profile)
        if not may_declare(held, wild, get_profile(profile).dublees):
            no_declaration += 1
            assert not best.declarable, (held, cut)
        if not may_hold_pure(held):
            no_pure += 1
            assert not any(kind.is_pure for kind in best.kinds), (held, cut)
    assert no_pure > 10 and (profile == "marriage21" or no_declaration > 10)


def test_the_shapes_they_look_for() -> None:
    wild: frozenset[int] = frozenset()  # no wild card
    assert may_meld(parse_cards("7H")[0], parse_cards("7S 7D"), wild)  # a set
    assert may_meld(parse_cards("7H")[0], parse_cards("5H 6H"), wild)  # a sequence
    assert may_meld(parse_cards("AH")[0], parse_cards("QH KH"), wild)  # the ace after the king
    assert may_meld(parse_cards("7H")[0], parse_cards("7H"), wild)  # a dublee, a tunnela
    assert not may_meld(parse_cards("7H")[0], parse_cards("7S 5H 10H KD"), wild)
    wild_nines = frozenset(card.code for card in parse_cards("9S 9H 9D 9C JK"))
    assert may_meld(parse_cards("7H")[0], parse_cards("5H 9C"), wild_nines)  # 5H 9C 7H
    assert may_meld(parse_cards("7H")[0], parse_cards("JK 9C"), wild_nines)
    assert not may_meld(parse_cards("7H")[0], parse_cards("4H JK 10H"), wild_nines)
    assert may_hold_pure(parse_cards("QS KS AS 2D"))
    assert may_hold_pure(parse_cards("4C 4C 4C"))
    assert not may_hold_pure(parse_cards("KS AS 2S 4C 5C 7C"))  # no wrapping round the ace


def actions(game: str, profile: str | None, players: int, deals: int, shortcuts: bool) -> list[str]:
    """Every action the bots of a seeded simulation sent, in order."""
    rummy_bot._MEMO.clear()
    sent: list[str] = []
    make = catalog.get(game).bot

    class Recorded:
        def __init__(self, seat: int, seed: int) -> None:
            self.seat = seat
            self.bot: Any = make(seed)
            assert isinstance(self.bot, RummyBot)
            self.bot.shortcuts = shortcuts  # on the instance: the class keeps its own

        def act(self, view: Any) -> str | None:
            action: str | None = self.bot.act(view)
            sent.append(f"{self.seat} {action}")
            return action

    def bots(seat: int, seed: int) -> Bot:
        return Recorded(seat, seed)

    simulate(
        game=game, profile=profile, players=players, deals=deals, seed=5, checks=False, bots=bots
    )
    return sent


@pytest.mark.parametrize(
    ("game", "profile", "players", "deals"),
    [("indian13", "classic", 4, 40), ("indian13", "vengala", 3, 30), ("marriage21", None, 4, 4)],
)
def test_the_same_actions_with_and_without_shortcuts(
    game: str, profile: str | None, players: int, deals: int
) -> None:
    fast = actions(game, profile, players, deals, shortcuts=True)
    assert fast == actions(game, profile, players, deals, shortcuts=False)
    assert len(fast) > deals * 10
