"""The Rummy 51 engine, rule by rule, in scenarios written in notation (docs/records.md).

Decks are stacked (tests/scenarios.py ``deck51``) so that every hand is known, and every accepted
line is followed by the invariant checks of ``rummyhall simulate`` (cards and chips conserved, no
view or event showing a card its seat may not see). A refused line (``!code``) must change
nothing. Unless a test says otherwise two players sit at the table, seat 1 moves first, and the
stake is 10.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from rummyhall.cards import parse, shoe
from rummyhall.games.invariants import Invariants
from rummyhall.games.protocol import Event, GameError, replay
from rummyhall.games.rummy51.engine import Rummy51
from rummyhall.games.rummy51.rules import TURN_MS, Rummy51Config, hand_points
from scenarios import Table, deck51

# A game of lay-offs: seat 1 opens with a run and a set (51 exactly), seat 2 takes the discard
# without being able to open and puts it back, then opens and lays off on seat 1's run.
LAY_OFF = (
    "6S 7S 8S 10D 10C 10H KC KD KS 9S 10S 2H 3D 4C 5D",
    "4S 5S 9H QS JH JK 3C 3H QC AD QD KH 7C 8D",
)
LAY_OFF_STOCK = "2C 9D 4H 5H 9C AS 2S 3S 4D 5C 6C 7D 8C"

# A game of jokers: swaps in a set and a run, a joker onto a run and one refused on a set, a
# burial, and seat 1 going out on seat 2's run.
JOKERS = (
    "9S 10S JS QS KS 7H 7D 7C 4D 4C JK 2H 5C 8C 6D",
    "2S 3S 4S 5S 6S 8H 8D 8C JK 3H 9C 10C KD AH",
)
JOKERS_STOCK = "QD KH 4H 6C 7C"


class Checked(Table):
    """A scenario table that checks every invariant after each accepted action."""

    def __init__(self, game: Rummy51, decks: Sequence[Any]) -> None:
        super().__init__(game, decks)
        self.invariants = Invariants(game, shoe(2, 2), game.view_shape)

    def do(self, line: str) -> list[Event]:
        events = super().do(line)
        if "!" not in line:
            assert self.invariants.check(events) == [], line
        return events


def table(hands: Sequence[str], stock: str = "", **kw: Any) -> Checked:
    game = Rummy51(
        Rummy51Config(
            seats=kw.pop("seats", len(hands)),
            stake=kw.pop("stake", 10),
            reward=kw.pop("reward", 0),
        )
    )
    t = Checked(game, [deck51(hands, stock)])
    t.do("p0 deal @0")
    return t


def data(t: Table, kind: str) -> dict[str, Any]:
    """The data of the last action's event of ``kind``."""
    return dict(next(event.data for event in t.last if event.kind == kind))


def groups(t: Table) -> list[list[str]]:
    return [group["cards"] for group in t.game.view(None)["table"]]


# --- the deal and the opening round -------------------------------------------------------------


def test_the_deal_gives_the_first_player_fifteen_cards_and_the_rest_to_the_stock() -> None:
    t = table(LAY_OFF, LAY_OFF_STOCK)
    view = t.game.view(1)
    assert [(s["seat"], s["cards"]) for s in view["seats"]] == [(1, 15), (2, 14)]
    assert view["closed"] == 108 - 29
    assert view["open"] == [] and view["table"] == []
    assert view["turn"] == 1 and view["drawn"] and view["first_round"]
    assert t.game.awaited()[0].deadline == TURN_MS
    assert sorted(view["hand"]) == sorted(LAY_OFF[0].split())
    assert "hand" not in t.game.view(None)


def test_the_opening_round_has_no_draw_for_the_first_player_and_no_opening() -> None:
    t = table(LAY_OFF, LAY_OFF_STOCK)
    t.play(
        """
        p1 draw closed !illegal_action
        p1 open 6S 7S 8S | 10D 10C 10H !illegal_action
        p1 discard JK !invalid_cards
        p1 discard 5D
        # The discard pile is free to take in the opening round: no opening is owed for it.
        p2 draw open
        p2 open QC QD QS | 9H JK JH !illegal_action
        p2 discard 8D
        """
    )
    view = t.game.view(2)
    assert not view["first_round"] and "5D" in view["hand"]
    assert view["open"] == ["8D"]


# --- opening ----------------------------------------------------------------------------------


def test_an_opening_needs_51_in_valid_groups_with_one_joker_each_at_most() -> None:
    t = table(LAY_OFF, LAY_OFF_STOCK)
    t.play(
        """
        p1 discard 5D
        p2 draw closed
        p2 discard 8D
        p1 draw closed
        p1 open 10D 10C 10H !illegal_action
        p1 open 6S 7S 8S | 2C 3D 4C !invalid_cards
        p1 open 6S 7S 8S | 10D 10C !invalid_cards
        p1 open 6S 7S 8S | 10D 10C 10H | 10D !invalid_cards
        p1 meld 6S 7S 8S !illegal_action
        p1 add 1 9S !invalid_cards
        p1 open 6S 7S 8S | 10D 10C 10H
        """
    )
    opened = data(t, "open")
    assert opened["value"] == 21 + 30 == 51
    assert [g["cards"] for g in opened["groups"]] == [["6S", "7S", "8S"], ["10H", "10D", "10C"]]
    assert [g["id"] for g in opened["groups"]] == [1, 2]
    assert t.seat(1)["opened"] and t.game.view(1)["seats"][0]["cards"] == 9
    t.play(
        """
        p1 open KC KD KS !illegal_action
        p1 meld KC KD KS
        """
    )
    assert data(t, "meld")["value"] == 30


def test_two_jokers_in_an_opening_group_are_refused_but_a_later_run_may_hold_them() -> None:
    hands = (
        "9C 10C JK JK QC 5H 6H 7H KS KH KD 2D 4D 6D 8D",
        "2S 3S 4S 5S 6S 8H 8D 8C 3H 3C 9S 10H KC AH",
    )
    t = table(hands, "AS JK 3D 4C 5C 6C")
    t.play(
        """
        p1 discard 2D
        p2 draw closed
        p2 discard AS
        p1 draw closed
        p1 open 9C JK JK QC | 5H 6H 7H | KS KH KD !invalid_cards
        p1 open 9C 10C JK QC | 5H 6H 7H | KS KH KD
        """
    )
    assert data(t, "open")["value"] == 39 + 18 + 30
    t.play(
        """
        p1 meld 4D JK 6D JK 8D !illegal_action
        p1 meld 4D JK 6D JK
        """
    )
    assert t.game.view(None)["table"][0]["stands"] == [None, None, "JC", None]
    meld = data(t, "meld")
    assert meld["value"] == 4 + 5 + 6 + 7
    assert meld["groups"][0]["stands"] == [None, "5D", None, "7D"]
    assert t.game.view(1)["hand"] == ["8D"]


def test_the_discard_taken_without_having_opened_obliges_an_opening_or_goes_back() -> None:
    t = table(LAY_OFF, LAY_OFF_STOCK)
    t.play(
        """
        p1 discard 5D
        p2 draw open
        p2 discard 8D
        p1 draw closed
        p1 open 6S 7S 8S | 10D 10C 10H
        p1 discard 2H
        p2 draw open
        """
    )
    view = t.game.view(2)
    assert view["must_open"] and "return" in t.game.legal(2)
    assert view["opening_hint"]["opens"] and view["opening_hint"]["value"] >= 51
    t.play(
        """
        p2 discard 7C !illegal_action
        p2 return
        p2 draw open !illegal_action
        p2 return !illegal_action
        p2 draw closed
        """
    )
    view = t.game.view(2)
    assert not view["must_open"] and view["open"][-1] == "2H" and view["drew"] == "9D"
    # Taking it and opening in the same turn settles the obligation; the card taken need not be
    # part of the opening.
    t2 = table(LAY_OFF, LAY_OFF_STOCK)
    t2.play(
        """
        p1 discard 5D
        p2 draw open
        p2 discard 8D
        p1 draw closed
        p1 discard 2H
        p2 draw open
        p2 open QC QD QS | 9H JK JH
        p2 discard 2H
        """
    )


# --- after opening ------------------------------------------------------------------------------


def test_lay_offs_on_anyone_s_groups_and_the_card_kept_to_throw() -> None:
    t = table(LAY_OFF, LAY_OFF_STOCK)
    t.play(
        """
        p1 discard 5D
        p2 draw open
        p2 discard 8D
        p1 draw closed
        p1 open 6S 7S 8S | 10D 10C 10H
        p1 add 1 9S
        p1 add 2 10S
        p1 add 2 10S !invalid_cards
        p1 add 9 2C !invalid_cards
        p1 add one 2C !bad_action
        p1 add 1 2C !illegal_action
        p1 discard 2H
        p2 draw closed
        p2 add 1 5S !illegal_action
        p2 open QC QD QS | 9H JK JH
        p2 add 1 5S
        p2 add 1 4S
        p2 add 2 3H !illegal_action
        """
    )
    assert groups(t)[0] == ["4S", "5S", "6S", "7S", "8S", "9S"]
    assert groups(t)[1] == ["10S", "10H", "10D", "10C"]
    assert t.game.view(None)["table"][0]["owner"] == 1


def test_the_last_card_never_goes_on_the_table() -> None:
    t = table(JOKERS, JOKERS_STOCK)
    t.play(
        """
        p1 discard 6D
        p2 draw closed
        p2 discard QD
        p1 draw closed
        p1 open 9S 10S JS QS KS | 7H 7D 7C | 4D 4C JK | 2H 5C 8C KH !illegal_action
        p1 open 9S 10S JS QS KS | 7H 7D 7C
        p1 meld 4D 4C JK
        p1 discard KH
        p2 draw closed
        p2 open 2S 3S 4S 5S 6S | 8H 8D 8C | JK 9C 10C
        p2 swap 3 4H
        p2 add 1 JK
        p2 discard AH
        p1 draw closed
        p1 swap 6 8C
        p1 discard 2H JK
        p2 draw open
        p2 discard 2H
        p1 draw closed
        p1 meld 5C 6C 7C !illegal_action
        p1 add 6 7C
        p1 add 6 6C
        p1 add 6 5C !illegal_action
        """
    )
    assert t.game.view(1)["hand"] == ["5C"]


def test_jokers_swap_out_of_sets_and_runs_go_onto_runs_and_never_onto_sets() -> None:
    t = table(JOKERS, JOKERS_STOCK)
    t.play(
        """
        p1 discard 6D
        p2 draw closed
        p2 discard QD
        p1 draw closed
        p1 open 9S 10S JS QS KS | 7H 7D 7C
        p1 meld 4D 4C JK
        p1 discard KH
        p2 draw closed
        p2 swap 3 4H !illegal_action
        p2 open 2S 3S 4S 5S 6S | 8H 8D 8C !illegal_action
        p2 open 2S 3S 4S 5S 6S | 8H 8D 8C | JK 9C 10C
        """
    )
    table_now = t.game.view(None)["table"]
    # A set's joker names one missing suit (the first, spades); any missing suit swaps it.
    assert table_now[2]["stands"] == [None, None, "4S"]
    assert table_now[5]["stands"] == ["8C", None, None]
    t.play(
        """
        p2 swap 3 4D !invalid_cards
        p2 swap 6 4H !illegal_action
        p2 swap 3 4H
        p2 add 5 JK !illegal_action
        p2 add 1 JK
        """
    )
    assert data(t, "add")["group"]["stands"] == [None] * 5 + ["AS"]
    assert groups(t)[2] == ["4H", "4D", "4C"]
    t.play(
        """
        p2 discard AH
        p1 draw closed
        p1 swap 6 8C
        """
    )
    assert "JK" in t.game.view(1)["hand"] and groups(t)[5] == ["8C", "9C", "10C"]


# --- discards -----------------------------------------------------------------------------------


def test_a_joker_is_never_thrown_alone_but_may_be_buried_under_a_card() -> None:
    t = table(JOKERS, JOKERS_STOCK)
    t.play(
        """
        p1 discard 6D
        p2 draw closed
        p2 discard QD
        p1 draw closed
        p1 open 9S 10S JS QS KS | 7H 7D 7C
        p1 meld 4D 4C JK
        p1 discard KH
        p2 draw closed
        p2 open 2S 3S 4S 5S 6S | 8H 8D 8C | JK 9C 10C
        p2 discard AH
        p1 draw closed
        p1 swap 6 8C
        p1 discard JK !illegal_action
        p1 discard 2H 5C JK !bad_action
        p1 discard 2H JK
        """
    )
    thrown = data(t, "discard")
    assert thrown == {"seat": 1, "cards": ["JK", "2H"], "buried": True, "left": 2}
    assert t.game.view(None)["open"][-2:] == ["JK", "2H"]


# --- going out, scores and places ---------------------------------------------------------------


def test_going_out_scores_minus_40_and_the_others_their_cards_or_100() -> None:
    t = table(JOKERS, JOKERS_STOCK)
    t.play(
        """
        p1 discard 6D
        p2 draw closed
        p2 discard QD
        p1 draw closed
        p1 open 9S 10S JS QS KS | 7H 7D 7C
        p1 meld 4D 4C JK
        p1 discard KH
        p2 draw closed
        p2 open 2S 3S 4S 5S 6S | 8H 8D 8C | JK 9C 10C
        p2 swap 3 4H
        p2 add 1 JK
        p2 discard AH
        p1 draw closed
        p1 swap 6 8C
        p1 discard 2H JK
        p2 draw open
        p2 discard 2H
        p1 draw closed
        p1 add 6 7C
        p1 add 6 6C
        p1 discard 5C
        """
    )
    end = data(t, "game_end")
    assert end["winner"] == 1 and not end["rummy"]
    assert end["places"]["1"] == {
        "place": 1,
        "score": -40,
        "cards_left": 0,
        "cards_thrown": 15,
        "opened": True,
        "rummy": False,
    }
    assert end["places"]["2"]["score"] == 3 + 10  # 3H KD
    assert end["places"]["2"]["cards_thrown"] == 13
    result = t.game.result
    assert result is not None and result.winners == (1,)
    assert dict(result.points) == {1: -40, 2: 13}
    assert sorted((p.account, p.amount) for p in result.postings) == [
        ("seat:1", 10),
        ("seat:2", -10),
    ]
    assert t.game.awaited() == [] and t.game.legal(2) == []
    assert t.game.view(None)["seats"][1]["hand"] == ["3H", "KD"]
    # The record replays to the same result.
    again = replay(t.game.record())
    assert again.result == result


def rummy_game(**config: int) -> Checked:
    """Seat 1 opens and goes out in one turn (a Rummy); the two others never open."""
    hands = (
        "AS 2S 3S 4S 5H 6H 7H 8H 9D 10D JD QC QH QS KC",
        "2C 3C 5D 7D 9S 10H JH KH AC 4H 6C 8S 3D 5S",
        "2H 4C 6S 8C 10C QD AD 3H 5C 7S 9H JC KD 9C",
    )
    t = table(hands, "2D 4D 6D 8D 10S", **config)
    t.play(
        """
        p1 discard KC
        p2 draw closed
        p2 discard 2D
        p3 draw closed
        p3 discard 4D
        p1 draw closed
        p1 open AS 2S 3S 4S | 5H 6H 7H 8H | 9D 10D JD | QC QH QS
        p1 discard 6D
        """
    )
    return t


def test_a_rummy_goes_out_in_the_turn_of_the_opening_and_never_opened_scores_100() -> None:
    t = rummy_game(stake=5)
    end = data(t, "game_end")
    assert end["winner"] == 1 and end["rummy"]
    assert end["places"]["1"]["rummy"] and end["places"]["1"]["score"] == -40
    # Both others never opened: 100 each, 14 cards each, so seat order from the winner decides.
    assert [(end["places"][s]["place"], end["places"][s]["score"]) for s in "23"] == [
        (2, 100),
        (3, 100),
    ]
    assert not end["places"]["2"]["opened"]
    result = t.game.result
    assert result is not None
    assert sorted((p.account, p.amount) for p in result.postings) == [
        ("seat:1", 10),
        ("seat:2", -5),
        ("seat:3", -5),
    ]


# --- timeouts -----------------------------------------------------------------------------------


def test_a_timeout_draws_and_throws_the_card_drawn() -> None:
    t = table(LAY_OFF, LAY_OFF_STOCK)
    t.play(
        """
        p1 timeout !too_early
        p1 discard 5D @31001 !too_late
        p1 timeout @31000
        """
    )
    # The first player's first turn has no draw: the highest ordinary card goes.
    late = data(t, "timeout")
    # (Ten-pointers tie; the last in display order goes: clubs, the king.)
    assert late == {"seat": 1, "returned": None, "drew": False, "discarded": "KC"}
    t.do("p2 timeout @62000")
    late = data(t, "timeout")
    assert late == {"seat": 2, "returned": None, "drew": True, "discarded": "2C"}
    assert t.game.view(2)["seats"][1]["cards"] == 14


def test_a_timeout_puts_back_a_discard_taken_without_opening() -> None:
    t = table(LAY_OFF, LAY_OFF_STOCK)
    t.play(
        """
        p1 discard 5D
        p2 draw closed
        p2 discard 8D
        p1 draw closed
        p1 discard 2H
        p2 draw open
        p2 timeout @200000
        """
    )
    late = data(t, "timeout")
    assert late == {"seat": 2, "returned": "2H", "drew": True, "discarded": "4H"}
    assert t.game.view(None)["open"][-2:] == ["2H", "4H"]


def test_a_timeout_after_drawing_a_joker_throws_the_highest_ordinary_card() -> None:
    t = table(LAY_OFF, "JK 9D")
    t.play(
        """
        p1 discard 5D
        p2 draw closed
        p2 timeout @100000
        """
    )
    assert data(t, "timeout")["discarded"] == "QC"
    assert "JK" in t.game.view(2)["hand"]


# --- the stock, the table and the record ---------------------------------------------------------


def test_an_empty_stock_is_refilled_from_the_discard_pile_under_its_top_card() -> None:
    game = Rummy51(Rummy51Config(seats=2))
    deck = deck51(LAY_OFF, LAY_OFF_STOCK)
    t = Table(game, [deck])  # no card checks: the stock is cut short below
    t.do("p0 deal @0")
    game.stock = game.stock[:1]  # a game near its end: one card left to draw
    t.play(
        """
        p1 discard 5D
        p2 draw closed
        p2 discard 8D
        """
    )
    assert game.awaited()[0].kind == "reshuffle" and data(t, "closed_empty")["open"] == 2
    under = game.refill_source()
    assert [str(c) for c in under] == ["5D"]
    t.decks.append([*under, under[0]])
    t.do("p0 deal !invalid_cards")  # not the cards under the top
    t.decks[0] = under
    t.do("p0 deal")
    assert data(t, "reshuffle") == {"closed": 1}
    view = game.view(1)
    assert view["turn"] == 1 and view["open"] == ["8D"] and view["phase"] == "play"


def test_the_first_move_passes_one_seat_on_from_game_to_game() -> None:
    config = Rummy51Config(seats=3).to_json()
    firsts = [Rummy51.table_config(config, game_no=n, stacks={})["first"] for n in range(1, 6)]
    assert firsts == [1, 2, 3, 1, 2]
    game = Rummy51.create(Rummy51.table_config(config, game_no=2, stacks={}))
    assert game.order == [2, 3, 1]


def test_a_tier_reward_pays_the_winner_and_the_house_keeps_the_rest() -> None:
    # Three players at Tundra's stake and reward: the two losers' stakes of 20 pay the winner's
    # reward of 25 (their own stake was never paid in), the house keeps 15.
    t = rummy_game(stake=20, reward=25)
    result = t.game.result
    assert result is not None
    paid = {posting.account: posting.amount for posting in result.postings}
    assert paid == {"seat:1": 25, "seat:2": -20, "seat:3": -20, "house": 15}


@pytest.mark.parametrize(
    "config",
    [
        {"seats": 1},
        {"seats": 7},
        {"stake": -1},
        {"first": 5},
        {"turn_ms": 0},
        {"seats": 2, "x": 1},
        # A reward the losers' stakes cannot pay: two players in Tundra (20 staked, 25 won).
        {"seats": 2, "stake": 20, "reward": 25},
        {"stake": 10, "reward": -1},
    ],
)
def test_configs_the_rules_do_not_allow_are_refused(config: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        Rummy51.create(config)


def test_a_deal_must_be_the_whole_shoe() -> None:
    game = Rummy51(Rummy51Config(seats=2))
    t = Table(game, [deck51(LAY_OFF)[:-1]])
    with pytest.raises(GameError):
        t.do("p0 deal @0")
    assert game.log == []


@pytest.mark.parametrize(
    ("card", "points"),
    [("AS", 10), ("2H", 2), ("9D", 9), ("10C", 10), ("JS", 10), ("QH", 10), ("KD", 10), ("JK", 20)],
)
def test_cards_left_in_hand_cost_their_value_and_a_joker_20(card: str, points: int) -> None:
    assert hand_points(parse(card)) == points
