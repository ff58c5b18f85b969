"""The Rummy Patti engine, rule by rule, in scenarios written in notation (docs/records.md).

Decks are stacked (tests/scenarios.py ``patti_deck``) so that every hand is known, and every
accepted line is followed by the invariant checks of ``rummyhall simulate`` (cards and chips
conserved, no view or event showing a card its seat may not see). Unless a test says otherwise
the boot is 10, seat 1 plays first, and the hands are, in turn order:

    T  AS AH AD   trail              Q  KS QS JS   pure sequence
    P  7D 7C 2H   pair               H  9C 6D 4H   high card

with 10H the open card and 5S the closed one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummyhall.cards import shoe
from rummyhall.games.invariants import Invariants
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.rules import (
    MAX_CHAAL_BOOTS,
    POT_LIMIT_BOOTS,
    TURN_MS,
    PattiConfig,
)
from rummyhall.games.protocol import (
    HOUSE,
    Awaited,
    Deal,
    Event,
    GameError,
    Posting,
    game_class,
    next_first,
    replay,
)
from scenarios import Table, patti_deck

T, Q, P, H = "AS AH AD", "KS QS JS", "7D 7C 2H", "9C 6D 4H"
OPEN, CLOSED = "10H", "5S"


class Checked(Table):
    """A scenario table that checks every invariant after each accepted action."""

    def __init__(self, game: Patti, decks: Sequence[Any]) -> None:
        super().__init__(game, decks)
        self.invariants = Invariants(game, shoe(1, 0))

    def do(self, line: str) -> list[Event]:
        events = super().do(line)
        if "!" not in line:
            assert self.invariants.check(events) == [], line
        return events


def table(
    hands: Sequence[str], open_card: str = OPEN, closed_card: str = CLOSED, **kw: Any
) -> Checked:
    """A dealt game: ``hands`` in turn order (from ``first``, seat 1 unless told)."""
    game = Patti(PattiConfig(seats=kw.pop("seats", len(hands)), **kw))
    t = Checked(game, [patti_deck(hands, open_card, closed_card)])
    t.do("p0 deal @0")
    return t


def seat(t: Table, number: int, viewer: int | None = None) -> dict[str, Any]:
    return t.seat(number, viewer)


def kinds(events: Sequence[Event]) -> list[str]:
    return [event.kind for event in events]


def paid(events: Sequence[Event]) -> list[Posting]:
    return [posting for event in events for posting in event.postings]


# --- configuration ------------------------------------------------------------------------------


def test_config_defaults_are_the_rules_page_numbers() -> None:
    config = PattiConfig(seats=3, boot=5)
    assert config.max_chaal == MAX_CHAAL_BOOTS * 5 == 640
    assert config.pot_limit == POT_LIMIT_BOOTS * 5 == 5120
    assert config.stacks == (5120, 5120, 5120)
    assert config.turn_ms == TURN_MS == 15_000
    assert config.first == 1
    assert config.players == [1, 2, 3]
    assert PattiConfig(seats=4, first=3).players == [3, 4, 1, 2]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"seats": 1}, "seats 2 to 6"),
        ({"seats": 7}, "seats 2 to 6"),
        ({"boot": 0}, "boot"),
        ({"max_chaal": 5}, "below the boot"),
        ({"pot_limit": 20}, "pot limit"),
        ({"stacks": (100,)}, "one stack per seat"),
        ({"stacks": (100, -1)}, "negative"),
        ({"stacks": (100, 9)}, "at least 2 seats"),
        ({"first": 3}, "first"),
        ({"turn_ms": 0}, "turn time"),
    ],
)
def test_config_refuses_impossible_tables(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PattiConfig(**{"seats": 2, "boot": 10, **kw})


def test_config_round_trips_through_records() -> None:
    config = PattiConfig(seats=4, boot=5, stacks=(100, 4, 300, 50), first=3, turn_ms=9000)
    data = json.loads(json.dumps(config.to_json()))
    assert PattiConfig.from_json(data) == config
    game = game_class("patti").create(data)
    assert isinstance(game, Patti) and game.config == config
    with pytest.raises(ValueError, match="unknown config keys: colour"):
        PattiConfig.from_json({**data, "colour": "red"})


def test_the_first_move_passes_one_seat_on_each_game() -> None:
    assert [next_first(first, 6) for first in range(1, 7)] == [2, 3, 4, 5, 6, 1]
    t = table([T, Q, P], first=3)  # turn order 3 1 2: seat 3 gets T
    assert t.view(None)["first"] == 3 and t.view(None)["dealer"] == 2
    with pytest.raises(ValueError, match="not over"):
        t.game.next_config()
    t.play("p3 pack\np1 pack")
    after = t.game.next_config()
    assert after.first == 1
    assert after.stacks == (10230, 10260, 10230)  # seat 2 won the three boots
    assert after.boot == 10 and after.pot_limit == 10240
    # A table where only one seat can pay the boot has no next game.
    with pytest.raises(ValueError, match="at least 2 seats"):
        after.following((10, 5, 0))


# --- the deal -------------------------------------------------------------------------------------


def test_the_deal_collects_the_boot_and_deals_three_cards_each() -> None:
    game = Patti(PattiConfig(seats=3, first=2))
    assert game.awaited() == [Awaited(HOUSE, "deal", None)]
    assert game.legal(HOUSE) == ["deal"] and game.legal(1) == []
    assert game.census() == {}
    t = Checked(game, [patti_deck([T, Q, P], OPEN, CLOSED)])
    events = t.do("p0 deal @1000")
    assert kinds(events) == ["deal", "hand", "hand", "hand", "turn"]
    deal = events[0]
    assert deal.data == {
        "order": [2, 3, 1],
        "first": 2,
        "dealer": 1,
        "out": [],
        "boot": 10,
        "pot": 30,
        "open": OPEN,
    }
    assert deal.postings == (
        Posting("seat:2", -10),
        Posting("seat:3", -10),
        Posting("seat:1", -10),
        Posting("pot", 30),
    )
    assert [(e.to, e.data["cards"]) for e in events[1:4]] == [
        (frozenset({2}), ["AS", "AH", "AD"]),
        (frozenset({3}), ["KS", "QS", "JS"]),
        (frozenset({1}), ["7D", "7C", "2H"]),
    ]
    assert game.awaited() == [Awaited(2, "turn", 1000 + TURN_MS)]
    census = game.census()
    assert [str(c) for c in census["hand:2"]] == ["AS", "AH", "AD"]
    assert [str(c) for c in census["open"]] == [OPEN]
    assert [str(c) for c in census["closed"]] == [CLOSED]
    assert len(census["out"]) == 52 - 11
    view = t.view(1)
    assert view["hand"] == ["7D", "7C", "2H"] and view["class"] == "pair"
    assert view["pot"] == 30 and view["chaal"] == 10 and view["chaal_2x"] == 20
    assert view["open"] == [OPEN] and view["closed"] == 1
    assert [s["stack"] for s in view["seats"]] == [10230] * 3
    assert "hand" not in t.view(None)


def test_a_seat_that_cannot_pay_the_boot_sits_the_game_out() -> None:
    t = table([T, Q, P], seats=4, stacks=(100, 9, 100, 100), first=2)
    assert t.game.order == [3, 4, 1]
    view = t.view(None)
    assert view["first"] == 3 and view["dealer"] == 1
    assert seat(t, 2)["status"] == "out" and seat(t, 2)["stack"] == 9
    assert t.view(2)["hand"] == []
    assert "hand:2" not in t.game.census()
    assert t.game.legal(2) == []
    t.do("p2 chaal ! illegal_action")
    t.do("p3 chaal")  # seat 3, dealt T, plays first


def test_the_house_deals_one_whole_pack_once() -> None:
    game = Patti(PattiConfig(seats=2))
    deck = patti_deck([T, Q], OPEN, CLOSED)
    t = Checked(game, [deck[:-1], (*deck[:-1], deck[0]), (*deck[:-1], shoe(1, 1)[-1]), deck])
    t.do("p1 chaal ! illegal_action")  # nothing dealt yet
    t.do("p0 deal ! invalid_cards")  # 51 cards
    t.decks.pop(0)
    t.do("p0 deal ! invalid_cards")  # a card twice
    t.decks.pop(0)
    t.do("p0 deal ! invalid_cards")  # a printed joker
    t.decks.pop(0)
    t.do("p0 deal")
    t.decks.append(deck)
    t.do("p0 deal ! illegal_action")  # dealt already
    t.do("p1 deal ! bad_action")
    entry = game.log[0]
    assert entry["deal"]["cards"].split()[:2] == ["AS#1", "KS#1"]


# --- chaal ----------------------------------------------------------------------------------------


def test_the_chaal_follows_the_last_payment_as_in_the_rules_page_example() -> None:
    # docs/rules/rummy-patti.md: boot 10, four players A B C D.
    t = table([T, Q, P, H])
    steps = [
        ("p1 chaal", 10, 50),
        ("p2 chaal 2x", 20, 70),
        ("p3 exchange closed 2H", 20, 90),
        ("p4 pack", 0, 90),
        ("p1 sideshow", 20, 110),
    ]
    for line, pays, pot in steps:
        events = t.do(line)
        assert sum(-p.amount for p in paid(events) if p.account.startswith("seat:")) == pays
        assert t.view(None)["pot"] == pot
    assert t.view(None)["sideshow"] == {"asker": 1, "asked": 3}  # D has packed
    assert t.view(None)["chaal"] == 20


def test_chaal_2x_is_capped_at_the_max_chaal_and_then_no_longer_offered() -> None:
    t = table([T, Q, P], max_chaal=30)
    t.do("p1 chaal 2x")
    assert t.view(None)["chaal_2x"] == 30  # 40 would overshoot: cut to the max chaal
    events = t.do("p2 chaal 2x")
    assert events[0].data == {"seat": 2, "amount": 30, "double": True, "auto": False}
    assert t.view(None)["chaal"] == 30 and t.view(None)["chaal_2x"] is None
    assert "chaal 2x" not in t.game.legal(3)
    assert not [a for a in t.game.legal(3) if a.endswith("2x")]
    t.do("p3 chaal 2x ! illegal_action")
    t.do("p3 exchange open 2H 2x ! illegal_action")
    t.do("p3 chaal")
    assert t.view(None)["chaal"] == 30  # the chaal never falls


def test_chaal_2x_needs_the_chips() -> None:
    t = table([T, Q], stacks=(25, 1000))
    assert "chaal 2x" not in t.game.legal(1)  # 15 left after the boot, 2x costs 20
    t.do("p1 chaal 2x ! illegal_action")
    t.do("p1 chaal")
    assert seat(t, 1)["stack"] == 5


def test_chaal_notation_errors() -> None:
    t = table([T, Q])
    t.do("p1 chaal 3x ! bad_action")
    t.do("p1 raise ! bad_action")
    t.do("p1 pack now ! bad_action")
    t.do("p2 chaal ! not_your_turn")
    t.do("p7 chaal ! unknown_seat")
    t.do("p1   chaal    2x")  # spaces do not matter
    assert t.game.log[-1]["action"] == "chaal 2x"


# --- exchanges ------------------------------------------------------------------------------------


def test_exchange_with_the_open_card() -> None:
    t = table([T, Q, P])
    events = t.do("p1 exchange open AD")
    assert events[0].kind == "exchange"
    assert events[0].data == {
        "seat": 1,
        "with": "open",
        "amount": 10,
        "double": False,
        "took": OPEN,
        "released": "AD",
    }
    assert events[0].to is None
    assert t.view(1)["hand"] == ["AS", "AH", "10H"]
    assert t.view(None)["open"] == ["AD"]
    events = t.do("p2 exchange open JS 2x")  # the next player takes the released card
    assert events[0].data["amount"] == 20 and events[0].data["took"] == "AD"
    assert t.view(2)["hand"] == ["AD", "KS", "QS"]
    assert t.view(None)["open"] == ["JS"] and t.view(None)["chaal"] == 20


def test_exchange_with_the_closed_card_is_seen_by_its_player_only() -> None:
    t = table([T, Q, P])
    events = t.do("p1 exchange closed AD")
    assert kinds(events) == ["exchange", "exchanged", "turn"]
    assert events[0].data == {"seat": 1, "with": "closed", "amount": 10, "double": False}
    assert events[1].to == frozenset({1})
    assert events[1].data == {"took": CLOSED, "released": "AD"}
    assert t.view(1)["hand"] == ["AS", "AH", "5S"]
    assert [str(c) for c in t.game.census()["closed"]] == ["AD"]
    events = t.do("p2 exchange closed KS")
    assert events[1].data == {"took": "AD", "released": "KS"}


def test_exchange_errors_change_nothing() -> None:
    t = table([T, Q, P])
    t.do("p1 exchange open KS ! invalid_cards")  # seat 2's card
    t.do("p1 exchange open ZZ ! invalid_cards")
    t.do("p1 exchange open ! bad_action")
    t.do("p1 exchange sideways AS ! bad_action")
    t.do("p1 exchange open AS 3x ! bad_action")
    t.do("p1 exchange open AS 2x please ! bad_action")
    t.do("p2 exchange open KS ! not_your_turn")


# --- sideshows ------------------------------------------------------------------------------------


def test_a_sideshow_needs_three_players_and_a_previous_player_who_has_moved() -> None:
    t = table([T, Q, P])
    assert "sideshow" not in t.game.legal(1)
    t.do("p1 sideshow ! illegal_action")  # seat 3 has not played yet
    t.do("p1 chaal")
    assert "sideshow" in t.game.legal(2)
    t.do("p2 sideshow now ! bad_action")
    two = table([T, Q])
    two.do("p1 chaal")
    assert "sideshow" not in two.game.legal(2) and "show" in two.game.legal(2)
    two.do("p2 sideshow ! illegal_action")


def test_an_accepted_sideshow_shows_the_two_hands_to_each_other_only() -> None:
    t = table([T, Q, P, H])
    t.do("p1 chaal")
    events = t.do("p2 sideshow @5000")
    assert events[0].data == {"seat": 2, "asked": 1, "amount": 10, "deadline": 5000 + TURN_MS}
    assert t.game.awaited() == [Awaited(1, "sideshow", 5000 + TURN_MS)]
    assert t.game.legal(1) == ["accept", "refuse"] and t.game.legal(2) == []
    # Until the asked player answers, nobody else plays.
    t.do("p3 chaal ! not_your_turn")
    t.do("p2 chaal ! illegal_action")
    t.do("p1 chaal ! illegal_action")
    t.do("p1 accept please ! bad_action")
    events = t.do("p1 accept")
    assert kinds(events) == ["sideshow_accepted", "sideshow_cards", "turn"]
    shown = events[1]
    assert shown.to == frozenset({1, 2})
    assert shown.data == {
        "2": {"cards": ["KS", "QS", "JS"], "class": "pure sequence"},
        "1": {"cards": ["AS", "AH", "AD"], "class": "trail"},
    }
    assert t.view(1)["seen"] == [
        {
            "seat": 2,
            "cards": ["KS", "QS", "JS"],
            "class": "pure sequence",
            "outcome": "win",
            "after_move": 3,
        }
    ]
    assert t.view(2)["seen"][0]["cards"] == ["AS", "AH", "AD"]
    assert t.view(2)["seen"][0]["outcome"] == "lose"
    assert t.view(3)["seen"] == [] and t.view(4)["seen"] == []
    assert "seen" not in t.view(None)
    census = t.game.census()
    assert len(census["hand:1@2"]) == 3 and len(census["hand:2@1"]) == 3
    # Both play on; the turn passes to the player after the asker.
    assert t.view(None)["turn"] == 3
    t.play("p3 chaal\np4 chaal\np1 chaal")
    # Seat 2 swaps a card seat 1 saw for the closed card: seat 1 still knows that card.
    t.do("p2 exchange closed JS")
    census = t.game.census()
    assert [str(c) for c in census["closed@1"]] == ["JS"]
    assert [str(c) for c in census["hand:2@1"]] == ["KS", "QS"]
    assert t.view(1)["seen"][0]["cards"] == ["KS", "QS", "JS"]


def test_a_refused_sideshow_shows_nothing() -> None:
    t = table([T, Q, P, H])
    t.play("p1 chaal\np2 chaal\np3 sideshow")
    events = t.do("p2 refuse")
    assert kinds(events) == ["sideshow_refused", "turn"]
    assert events[0].data == {"seat": 2, "asker": 3}
    assert all(t.view(s)["seen"] == [] for s in (1, 2, 3, 4))
    assert not [name for name in t.game.census() if "@" in name]
    assert t.view(None)["turn"] == 4 and t.view(None)["pot"] == 70


def test_a_sideshow_is_asked_of_the_nearest_player_still_in() -> None:
    t = table([T, Q, P, H])
    t.play("p1 chaal\np2 pack\np3 sideshow")
    assert t.view(None)["sideshow"] == {"asker": 3, "asked": 1}


def test_an_unanswered_sideshow_is_refused_at_the_deadline() -> None:
    t = table([T, Q, P])
    t.play("p1 chaal\np2 sideshow @2000")
    t.do(f"p1 timeout @{2000 + TURN_MS - 1} ! too_early")
    t.do(f"p3 timeout @{2000 + TURN_MS} ! not_your_turn")
    t.do(f"p1 accept @{2000 + TURN_MS + 1} ! too_late")
    events = t.do(f"p1 timeout @{2000 + TURN_MS}")
    assert kinds(events) == ["timeout", "sideshow_refused", "turn"]
    assert events[0].data == {"seat": 1, "then": "refuse"}
    assert seat(t, 1)["timeouts"] == 0  # not a missed turn
    assert t.view(None)["turn"] == 3


# --- shows, packs and the end ---------------------------------------------------------------------


def test_a_show_between_the_last_two() -> None:
    t = table([P, Q, T])
    t.do("p1 show ! illegal_action")  # three still in
    t.play("p1 chaal 2x\np2 pack")
    events = t.do("p3 show")
    assert kinds(events) == ["show", "showdown", "game_over"]
    assert events[0].data == {"seat": 3, "amount": 20}
    assert events[1].data == {
        "how": "show",
        "hands": {"1": ["7D", "7C", "2H"], "3": ["AS", "AH", "AD"]},
        "classes": {"1": "pair", "3": "trail"},
        "winners": [3],
    }
    result = t.game.result
    assert result is not None
    assert result.winners == (3,)
    assert result.postings == (Posting("pot", -70), Posting("seat:3", 70))
    assert result.points == {1: -30, 2: -10, 3: 40}
    assert result.detail["how"] == "show" and result.detail["pot"] == 70
    assert result.detail["stacks"] == {"1": 10210, "2": 10230, "3": 10280}
    census = t.game.census()
    assert "shown:1" in census and "shown:3" in census and "hand:2" in census
    for viewer in (None, 1, 2, 3):
        assert seat(t, 1, viewer)["shown"] == ["7D", "7C", "2H"]
        assert seat(t, 2, viewer)["shown"] is None  # a packed hand is never shown
    assert t.view(None)["winners"] == [3] and t.view(None)["how"] == "show"
    assert t.game.awaited() == [] and t.game.legal(3) == []
    t.do("p1 chaal ! game_over")


def test_everyone_else_packs_and_the_last_player_wins_without_showing() -> None:
    t = table([T, Q, P])
    t.do("p1 pack")
    t.do("p1 chaal ! illegal_action")  # packed
    events = t.do("p2 pack")
    assert kinds(events) == ["pack", "game_over"]
    result = t.game.result
    assert result is not None
    assert result.winners == (3,) and result.detail["how"] == "last player"
    assert result.detail["shown"] == {}
    assert not [name for name in t.game.census() if name.startswith("shown")]
    assert seat(t, 3, 1)["shown"] is None
    assert result.points == {1: -10, 2: -10, 3: 20}


def test_equal_hands_share_the_pot_and_odd_chips_go_first_after_the_dealer() -> None:
    # The same ranks in different suits; the pot limit (4 chips) turns every hand over.
    same = ["KS QH JD", "KH QD JC", "KD QC JS"]
    t = table(same, boot=1, pot_limit=4, first=2)  # turn order 2 3 1: seat 1 deals
    events = t.do("p2 chaal 2x")  # pays 2: the pot of 5 reaches the limit
    assert kinds(events)[-2:] == ["showdown", "game_over"]
    result = t.game.result
    assert result is not None
    assert result.winners == (2, 3, 1)
    assert result.detail["shares"] == {"2": 2, "3": 2, "1": 1}
    assert result.postings == (
        Posting("pot", -5),
        Posting("seat:2", 2),
        Posting("seat:3", 2),
        Posting("seat:1", 1),
    )
    assert result.points == {1: 0, 2: -1, 3: 1}


def test_two_equal_hands_split_evenly() -> None:
    t = table(["KS QH JD", "9C 6D 4H", "KH QD JC"], boot=10, pot_limit=40)
    t.do("p1 chaal")  # the pot of 40 reaches the limit
    result = t.game.result
    assert result is not None
    assert result.winners == (1, 3) and result.detail["shares"] == {"1": 20, "3": 20}


def test_the_pot_limit_ends_the_game_in_a_showdown_of_every_hand_still_in() -> None:
    t = table([P, H, Q, T], pot_limit=100)
    t.play("p1 chaal 2x\np2 pack\np3 chaal 2x")  # pot 40 + 20 + 40 = 100
    assert t.game.over
    result = t.game.result
    assert result is not None
    assert result.detail["how"] == "pot limit"
    assert set(result.detail["shown"]) == {"1", "3", "4"}  # everyone still in, even unmoved
    assert result.winners == (4,) and result.detail["pot"] == 100


def test_the_payment_that_reaches_the_pot_limit_is_made_in_full_and_its_move_completed() -> None:
    t = table([H, P, Q], pot_limit=50, open_card="9H")
    events = t.do("p1 exchange open 4H 2x")  # pays 20: 30 + 20 = 50; takes the 9H first
    assert kinds(events) == ["exchange", "showdown", "game_over"]
    assert events[1].data["hands"]["1"] == ["9H", "9C", "6D"]  # suit order: S H D C
    assert t.view(None)["pot"] == 50


def test_a_sideshow_that_reaches_the_pot_limit_is_never_asked() -> None:
    t = table([T, Q, P], pot_limit=50)
    t.do("p1 chaal")
    events = t.do("p2 sideshow")
    assert kinds(events) == ["sideshow", "showdown", "game_over"]
    assert "deadline" not in events[0].data
    assert t.view(None)["sideshow"] is None


# --- timeouts and chips ---------------------------------------------------------------------------


def test_the_first_timeout_plays_a_chaal_and_the_second_in_a_row_packs() -> None:
    t = table([T, Q, P])
    t.do(f"p1 timeout @{TURN_MS - 1} ! too_early")
    t.do(f"p2 timeout @{TURN_MS} ! not_your_turn")
    t.do(f"p1 chaal @{TURN_MS + 1} ! too_late")
    events = t.do(f"p1 timeout @{TURN_MS}")
    assert kinds(events) == ["timeout", "chaal", "turn"]
    assert events[0].data == {"seat": 1, "then": "chaal"}
    assert events[1].data == {"seat": 1, "amount": 10, "double": False, "auto": True}
    assert seat(t, 1)["timeouts"] == 1 and seat(t, 1)["moved"]
    t.play("p2 chaal 2x\np3 chaal")
    events = t.do("p1 timeout +15000")
    assert kinds(events) == ["timeout", "pack", "turn"]
    assert events[1].data == {"seat": 1, "why": "timeouts"}
    assert seat(t, 1)["status"] == "packed"


def test_a_move_of_ones_own_resets_the_timeouts() -> None:
    t = table([T, Q])
    t.play("p1 timeout +15000\np2 chaal\np1 chaal\np2 chaal")
    events = t.do("p1 timeout +15000")
    assert events[0].data["then"] == "chaal"  # not two in a row
    t.do("p2 chaal")
    assert kinds(t.do("p1 timeout +15000"))[:2] == ["timeout", "pack"]


def test_a_seat_without_chips_for_the_chaal_is_packed_when_its_turn_comes() -> None:
    t = table([T, Q, P], stacks=(1000, 25, 1000))
    events = t.do("p1 chaal 2x")  # the chaal is now 20; seat 2 has 15 left
    assert kinds(events) == ["chaal", "pack", "turn"]
    assert events[1].data == {"seat": 2, "why": "chips"}
    assert t.view(None)["turn"] == 3
    assert seat(t, 2)["stack"] == 15
    assert t.view(None)["moves"][-1] == {"seat": 2, "move": "out of chips", "amount": 0}


def test_a_timeout_chaal_the_seat_cannot_pay_never_happens() -> None:
    # Seat 2 can pay the chaal when its turn comes, so the chaal played for it is paid in full.
    t = table([T, Q], stacks=(1000, 20))
    t.do("p1 chaal")
    t.do("p2 timeout +15000")
    assert seat(t, 2)["stack"] == 0
    events = t.do("p1 chaal")  # seat 2 has nothing left: packed, and seat 1 is the last in
    assert kinds(events) == ["chaal", "pack", "game_over"]
    result = t.game.result
    assert result is not None and result.winners == (1,)
    assert result.detail["stacks"] == {"1": 1020, "2": 0}


# --- views, legal moves, records ------------------------------------------------------------------


def test_legal_lists_every_move_of_the_player_to_move() -> None:
    t = table([T, Q, P])
    t.do("p1 chaal")
    legal = t.game.legal(2)
    assert legal[:2] == ["chaal", "chaal 2x"]
    exchanges = [a for a in legal if a.startswith("exchange")]
    assert len(exchanges) == 3 * 2 * 2 and "exchange closed QS 2x" in exchanges
    assert legal[-2:] == ["sideshow", "pack"]
    assert t.game.legal(1) == [] and t.game.legal(3) == []
    with pytest.raises(GameError) as refused:
        t.game.legal(9)
    assert refused.value.code == "unknown_seat"


def test_views_show_a_seat_its_own_cards_and_nothing_hidden() -> None:
    t = table([T, Q, P])
    spectators = t.view(None)
    assert spectators["viewer"] is None and "hand" not in spectators
    for viewer in (1, 2, 3):
        view = t.view(viewer)
        others = [s for s in view["seats"] if s["seat"] != viewer]
        assert all(s["shown"] is None for s in others)
    assert t.view(2)["hand"] == ["KS", "QS", "JS"]
    assert json.loads(json.dumps(t.view(1))) == t.view(1)


def test_a_record_replays_to_the_same_game() -> None:
    t = table([T, Q, P, H])
    t.play("p1 chaal\np2 sideshow\np1 accept\np3 exchange closed 2H 2x\np4 timeout +15000")
    t.play("p1 pack\np2 chaal\np3 chaal\np4 chaal\np2 pack")
    middle = json.loads(json.dumps(t.game.record()))
    t.do("p3 show")  # 7D 7C 5S, a pair, against 9C 6D 4H
    record = json.loads(json.dumps(t.game.record()))
    assert "result" not in middle and record["result"]["winners"] == [3]
    for upto, game in ((None, t.game), (len(middle["actions"]), replay(middle))):
        again = replay(record, upto=upto)
        for viewer in (None, 1, 2, 3, 4):
            assert again.view(viewer) == game.view(viewer)
        assert again.awaited() == game.awaited()
        assert again.result == game.result


def test_the_example_game_of_the_records_page_plays_as_it_says() -> None:
    text = (Path(__file__).parents[2] / "docs" / "records.md").read_text(encoding="utf-8")
    section = text[text.index("### A short Patti game, as printed") :]
    script = section.split("```")[1]
    game = Patti(PattiConfig(seats=4))
    t = Checked(game, [patti_deck([T, Q, P, H], OPEN, CLOSED)])
    t.play(script)
    result = game.result
    assert result is not None
    assert result.winners == (1,) and result.detail["pot"] == 150
    assert result.detail["how"] == "show"
    assert game.view(1)["seen"][0]["cards"] == ["7D", "7C", "5S"]
    assert game.view(2)["seen"] == [] and game.view(4)["seen"] == []


# --- properties -----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_chips_are_conserved_and_no_stack_goes_below_zero(data: st.DataObject) -> None:
    seats = data.draw(st.integers(2, 6), label="seats")
    boot = data.draw(st.sampled_from([1, 5, 10]), label="boot")
    stacks = data.draw(st.lists(st.integers(0, 40), min_size=seats, max_size=seats))
    stacks = [boot * n for n in stacks]
    stacks[0] = max(stacks[0], boot)
    stacks[-1] = max(stacks[-1], boot)
    max_chaal = boot * data.draw(st.sampled_from([1, 2, 4, 128]), label="max chaal")
    pot_limit = boot * data.draw(st.sampled_from([seats + 1, 30, 1024]), label="pot limit")
    first = data.draw(st.integers(1, seats), label="first")
    config = PattiConfig(seats, boot, max_chaal, pot_limit, tuple(stacks), first)
    game = Patti(config)
    order = data.draw(st.permutations(shoe(1, 0)), label="deck")
    game.apply(HOUSE, "deal", 0, deal=Deal(tuple(order)))
    at = 0
    for _ in range(200):
        if game.over:
            break
        awaited = game.awaited()[0]
        choices = [*game.legal(awaited.seat), "timeout"]
        action = data.draw(st.sampled_from(choices), label="action")
        assert awaited.deadline is not None
        at = awaited.deadline if action == "timeout" else at + 1
        game.apply(awaited.seat, action, at)
        assert all(game.stack(s) >= 0 for s in range(1, seats + 1))
        assert game.pot == sum(game.paid.values())
    if game.over:
        final = game.final_stacks()
        assert min(final) >= 0
        assert sum(final) == sum(stacks)
        result = game.result
        assert result is not None and sum(result.points.values()) == 0


def test_a_leaving_player_packs_and_refuses_a_sideshow() -> None:
    """What the table plays for someone who left: a pack at their turn, a refusal when asked
    for a sideshow (accepting could only keep them in the game), nothing when not awaited."""
    t = table([T, Q, P, H])
    assert t.game.leave_move(1) == "pack"
    assert t.game.leave_move(2) is None
    t.do("p1 chaal")
    t.do("p2 sideshow")
    assert t.game.leave_move(1) == "refuse"
    t.do(f"p1 {t.game.leave_move(1)}")
    assert t.game.leave_move(3) == "pack"
    t.do(f"p3 {t.game.leave_move(3)}")
    assert seat(t, 3)["status"] == "packed"
