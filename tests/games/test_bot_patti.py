"""The Rummy Patti bot (rummyhall.games.patti.bot): it plays from its view alone, every action it
sends is accepted, it is reproducible from its seed, and its rules of thumb do what they say."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from rummyhall.games.patti.bot import DEFAULT_STYLE, PattiBot, best_closed_swap
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.hands import TABLE, share_beaten
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.patti.tally import simulate_patti
from rummyhall.games.protocol import Deal
from rummyhall.sim import FairHouse, Runner, Tally
from rummyhall.sim import SimReport as PattiReport
from scenarios import patti_deck

CALM = replace(DEFAULT_STYLE, noise=0.0, play_on=0.0, raise_bluff=0.0, sideshow_chance=0.0)
"""No randomness at all: the rules of thumb alone."""


def dealt(hands: list[str], open_card: str = "10H", closed: str = "5S", **kw: Any) -> Patti:
    game = Patti(PattiConfig(seats=len(hands), **kw))
    game.apply(0, "deal", 0, deal=Deal(patti_deck(hands, open_card, closed)))
    return game


def test_bots_play_whole_games_with_every_action_accepted() -> None:
    report = simulate_patti(players=5, games=20, seed=3)
    assert isinstance(report, PattiReport)
    assert report.violations == [] and report.games == 20
    counts = report.counts
    for kind in ("chaal", "chaal 2x", "exchange open", "exchange closed", "sideshow", "show"):
        assert counts.get(kind, 0) > 0, kind
    assert counts.get("pack: packed", 0) > 0


def test_same_seed_same_play_and_another_seed_other_play() -> None:
    def moves(seed: int) -> list[str]:
        game = Patti(PattiConfig(seats=4))
        bots = {seat: PattiBot(seed=seed + seat) for seat in range(1, 5)}
        Runner(game, bots, FairHouse(11), Tally(4)).run()
        return [entry["action"] for entry in game.log]

    assert moves(1) == moves(1)
    assert any(moves(1) != moves(seed) for seed in (2, 3, 4))


def test_the_bot_answers_only_when_awaited() -> None:
    game = dealt(["AS AH AD", "KS QS JS", "7D 7C 2H"])
    bot = PattiBot(seed=1)
    assert bot.act(game.view(None)) is None
    assert bot.act(game.view(2)) is None  # seat 1 is to move
    assert bot.act({"viewer": 1, "game": "indian13"}) is None
    assert bot.act(game.view(1)) in game.legal(1)


def test_a_refused_action_is_never_sent_twice() -> None:
    game = dealt(["AS AH AD", "KS QS JS"])
    bot = PattiBot(seed=1)
    view = game.view(1)
    sent = []
    while (action := bot.act(view)) is not None:
        sent.append(action)
    assert sent and len(sent) == len(set(sent))


def test_a_trail_raises_and_a_hopeless_hand_facing_raises_packs() -> None:
    game = dealt(["AS AH AD", "KS QS JS", "5C 3D 2H"], open_card="9H", closed="4S")
    assert PattiBot(seed=1, style=CALM).act(game.view(1)) == "chaal 2x"
    game.apply(1, "chaal 2x", 1)
    game.apply(2, "chaal 2x", 2)
    # 5-3-2 of mixed suits, two raises ahead of it: no exchange makes it worth 40 chips.
    assert PattiBot(seed=1, style=CALM).act(game.view(3)) == "pack"


def test_the_bot_takes_the_open_card_when_it_makes_a_better_hand() -> None:
    # 9-6-4 with the open 9H: a pair of nines for the 4 (the least useful card).
    game = dealt(["9C 6D 4H", "KS QS JS"], open_card="9H", closed="4S")
    action = PattiBot(seed=1, style=CALM).act(game.view(1))
    assert action is not None and action.startswith("exchange open 4H")


def test_a_sideshow_it_lost_makes_the_bot_pack() -> None:
    game = dealt(["KD QC 9S", "AS AH AD", "7D 7C 2H"], open_card="3H", closed="4S")
    game.apply(1, "chaal", 1)
    game.apply(2, "sideshow", 2)
    game.apply(1, "accept", 3)  # seat 1 has seen the trail of seat 2
    game.apply(3, "chaal", 4)
    assert game.view(1)["seen"][0]["outcome"] == "lose"
    assert PattiBot(seed=1, style=CALM).act(game.view(1)) == "pack"


def test_sideshow_answers_follow_the_hand() -> None:
    strong = dealt(["AS AH AD", "5C 3D 2H", "7D 7C 2S"], open_card="9H", closed="4S")
    strong.apply(1, "chaal", 1)
    strong.apply(2, "sideshow", 2)
    assert PattiBot(seed=1, style=CALM).act(strong.view(1)) == "accept"
    weak = dealt(["5C 3D 2H", "AS AH AD", "7D 7C 2S"], open_card="9H", closed="4S")
    weak.apply(1, "chaal", 1)
    weak.apply(2, "sideshow", 2)
    assert PattiBot(seed=1, style=CALM).act(weak.view(1)) == "refuse"


def test_with_two_left_a_strong_hand_calls_the_show_rather_than_wait() -> None:
    style = replace(CALM, raise_above=2.0)  # never raises: the show is the way to win
    game = dealt(["AS AH KD", "5C 3D 2H"], open_card="9H", closed="4S")
    game.apply(1, "chaal", 1)
    game.apply(2, "chaal", 2)
    assert PattiBot(seed=1, style=style).act(game.view(1)) == "show"


def test_middling_hands_ask_for_sideshows() -> None:
    style = replace(CALM, sideshow_chance=1.0, raise_above=2.0, exchange_gain=1.0)
    game = dealt(["9C 9D 4H", "KS QH 8D", "4D 4C 9S", "JC 10D 5H"], open_card="3S", closed="4S")
    game.apply(1, "chaal", 1)
    game.apply(2, "chaal", 2)
    action = PattiBot(seed=1, style=style).act(game.view(3))
    assert action == "sideshow"


def test_best_closed_swap_averages_over_every_unseen_card() -> None:
    rng = random.Random(5)
    for _ in range(50):
        codes = rng.sample(range(52), 4)
        hand, open_code = codes[:3], codes[3]
        unseen = [c for c in range(52) if c not in codes]
        expected = []
        for index in range(3):
            a, b = (c for i, c in enumerate(hand) if i != index)
            expected.append(sum(share_beaten(TABLE[a][b][c]) for c in unseen) / len(unseen))
        share, index = best_closed_swap(hand, [*hand, open_code])
        assert share == pytest.approx(max(expected))
        assert expected[index] == pytest.approx(max(expected))
