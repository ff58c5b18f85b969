"""The 13-card Indian Rummy engine, rule by rule, in scenarios written in notation.

Decks are stacked (tests/scenarios.py) so that every hand is known. Unless a test says otherwise
the cut card is 7C, so every 7 and every printed joker is wild. Hands A and B are the worked
examples of docs/rules/indian-rummy-13.md; all the hands below fit in one two-deck shoe together,
with the junk cards drawn and thrown back in the long scenarios.
"""

from __future__ import annotations

import gc
import json
import random
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from rummyhall.cards import Card, format_groups, parse, shoe
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import (
    CLASSIC,
    COMMON,
    POOL101,
    POOL201,
    VENGALA,
    Indian13Config,
)
from rummyhall.games.protocol import (
    ERROR_CODES,
    HOUSE,
    Awaited,
    Deal,
    Event,
    GameError,
    Posting,
    game_class,
    notation,
    replay,
)
from rummyhall.melds import arrange
from rummyhall.shuffle import FairDeal
from scenarios import Table, stacked, views

# A winning hand: with the 9C drawn it declares (two pure sequences, the first of four cards).
W = "AD 2D 3D 4D 10C JC QC KD KS KC 8S 8H 8D"
W_DECLARE = "declare 9C | AD 2D 3D 4D | 10C JC QC | KD KS KC | 8S 8H 8D"
# The page's first example: classic 23 (requirement met); vengala 87, capped at 80.
A = "4H 5H 6H 9S 10S 7D QC QD QS KH 3C 8D 2S"
A_GROUPS = "4H 5H 6H | 9S 10S 7D | QC QD QS | KH 3C 8D 2S"
# The page's second example: classic 65 (only the pure sequence spared); vengala 74.
B = "2D 3D 4D KS KH KC 8H 8C 7S 3H 5C 9D 2S"
B_GROUPS = "2D 3D 4D | KS KH KC | 8H 8C 7S | 3H 5C 9D 2S"
# A complete, valid hand in both profiles (scores 2 for a loser).
V = "5S 6S 7S 8S JH QH JK 9C 9H 9S 3H 4H 5H"
V_GROUPS = "5S 6S 7S 8S | JH QH JK | 9C 9H 9S | 3H 4H 5H"
# Requirement met; loose, a 3 and three wild cards kept apart (no meld): 3 points.
L = "4H 5H 6H 9S 10S 7D QC QD QS 3C JK 7S 7H"
L_GROUPS = "4H 5H 6H | 9S 10S 7D | QC QD QS | 3C JK | 7S 7H"
# The requirement met and only a wild card left over.
A0 = "4H 5H 6H 9S 10S 7D QC QD QS JH QH KH 7S"
A0_GROUPS = "4H 5H 6H | 9S 10S 7D | QC QD QS | JH QH KH | 7S"
# Cards nobody holds, drawn and thrown back in long scenarios (none of them wild).
JUNK = "6D 6C JS 10H 5D 4S JD 10D"


def config(
    profile: str = "classic", seats: int = 2, mode: str = "points", **kw: Any
) -> Indian13Config:
    kw.setdefault("order", tuple(range(1, seats + 1)))
    return Indian13Config(profile=profile, seats=seats, mode=mode, **kw)


def table(
    hands: Sequence[str],
    cut: str = "7C",
    open_card: str = "2H",
    stock: str = "",
    *,
    profile: str = "classic",
    mode: str = "points",
    **kw: Any,
) -> Table:
    """A dealt game: ``hands`` in turn order (seats 1, 2, ... unless ``order`` says otherwise)."""
    game = Indian13(config(profile, len(hands), mode, **kw))
    decks, jokers = game.shoe()
    deck = stacked(hands, cut, open_card, stock, decks=decks, jokers=jokers)
    t = Table(game, [deck])
    t.do("p0 deal @0")
    return t


def drew(t: Table) -> str:
    """The card the last ``draw closed`` gave (from the drawer's private event)."""
    return str(next(e.data["card"] for e in t.last if e.kind == "drew"))


def hand(t: Table, seat: int) -> list[str]:
    cards: list[str] = t.view(seat)["hand"]
    return cards


def pass_turn(t: Table, seat: int) -> str:
    """Draw from the closed deck and throw the same card back."""
    t.do(f"p{seat} draw closed")
    card = drew(t)
    t.do(f"p{seat} discard {card}")
    return card


def declare_wrong(t: Table, seat: int) -> None:
    """Draw, then declare with every other card in one group: never a valid declaration."""
    t.do(f"p{seat} draw closed")
    card = drew(t)
    rest = list(hand(t, seat))
    rest.remove(card)
    t.do(f"p{seat} declare {card} | {' '.join(rest)}")


# --- configuration and rule data -------------------------------------------------------------


def test_rule_numbers_are_data() -> None:
    assert (CLASSIC.drops.first, CLASSIC.drops.middle) == (20, 40)
    assert (VENGALA.drops.first, VENGALA.drops.middle) == (10, 30)
    assert (POOL101.drops.first, POOL101.drops.middle) == (20, 40)
    assert (POOL201.drops.first, POOL201.drops.middle) == (25, 50)
    assert (POOL101.elimination, POOL101.rejoin_limit) == (101, 79)
    assert (POOL201.elimination, POOL201.rejoin_limit) == (201, 174)
    assert (COMMON.cap, COMMON.wrong_declaration, COMMON.met_objective) == (80, 80, 2)
    assert (COMMON.deal_show_min, COMMON.deal_show_max, COMMON.missed_turn_limit) == (2, 40, 3)


@pytest.mark.parametrize(
    ("profile", "seats", "expected"),
    [
        ("classic", 2, (2, 1)),
        ("classic", 6, (2, 1)),
        ("vengala", 2, (2, 2)),
        ("vengala", 4, (2, 2)),
        ("vengala", 5, (3, 2)),
    ],
)
def test_shoe(profile: str, seats: int, expected: tuple[int, int]) -> None:
    assert Indian13(config(profile, seats)).shoe() == expected


def test_config_round_trip_and_validation() -> None:
    cfg = Indian13Config(profile="vengala", seats=5, mode="pool201", entry_fee=50, rake_percent=10)
    game = Indian13(cfg)
    again = game_class("indian13").create(json.loads(json.dumps(game.config_json())))
    assert isinstance(again, Indian13)
    assert again.config == cfg
    ordered = Indian13(config("classic", 3, order=(2, 3, 1)))
    assert Indian13.create(ordered.config_json()).config.order == (2, 3, 1)
    for bad in (
        {"profile": "classic", "seats": 7},
        {"profile": "vengala", "seats": 6},
        {"seats": 1},
        {"mode": "pool301"},
        {"profile": "modern"},
        {"order": (1, 1)},
        {"point_value": 0},
        {"rake_percent": 101},
        {"colour": "red"},
    ):
        with pytest.raises(ValueError):
            Indian13Config.from_json(bad)


# --- toss, seating and dealing ---------------------------------------------------------------


def tossed(profile: str, seats: int, toss: str, hands: Sequence[str] = ()) -> Table:
    game = Indian13(Indian13Config(profile=profile, seats=seats))
    decks, jokers = game.shoe()
    filler = [W, A, B, V, L, W][: seats - len(hands)]
    deck = stacked([*hands, *filler], "7C", "2H", decks=decks, jokers=jokers, toss=toss)
    t = Table(game, [deck])
    t.do("p0 deal @0")
    return t


def test_classic_toss_orders_seats_highest_first_lowest_deals() -> None:
    t = tossed("classic", 3, "6D JS 10H", hands=[W, A, B])
    view = t.view(None)
    assert view["order"] == [2, 3, 1]
    assert (view["first"], view["dealer"], view["turn"]) == (2, 1, 2)
    assert view["toss"] == [
        {"seat": 1, "card": "6D"},
        {"seat": 2, "card": "JS"},
        {"seat": 3, "card": "10H"},
    ]
    assert t.kinds()[:2] == ["toss", "deal"]
    # The hands are dealt from the cards after the toss, first mover first.
    assert sorted(hand(t, 2)) == sorted(W.split())
    assert sorted(hand(t, 3)) == sorted(A.split())
    assert sorted(hand(t, 1)) == sorted(B.split())


def test_toss_passes_over_printed_jokers_and_aces_are_high() -> None:
    t = tossed("classic", 2, "JK KS AH")
    assert t.view(None)["order"] == [2, 1]
    assert t.view(None)["toss"] == [{"seat": 1, "card": "KS"}, {"seat": 2, "card": "AH"}]


def test_classic_toss_ties_are_drawn_again_among_the_tied() -> None:
    # J, 6, J, 6: seats 1 and 3 draw again (4S, 10H), then seats 2 and 4 (5D, 10D).
    t = tossed("classic", 4, "JS 6D JD 6C 4S 10H 5D 10D", hands=[W, A, B, V])
    view = t.view(None)
    assert view["order"] == [3, 1, 4, 2]
    assert view["dealer"] == 2
    assert [entry["seat"] for entry in view["toss"]] == [1, 2, 3, 4, 1, 3, 2, 4]
    assert sorted(hand(t, 3)) == sorted(W.split())
    assert sorted(hand(t, 2)) == sorted(V.split())


def test_vengala_toss_picks_the_first_mover_and_keeps_seat_order() -> None:
    # 6, 10, 6, 10: only the tie at the top is drawn again (4S, JS): seat 4 moves first.
    t = tossed("vengala", 4, "6D 10H 6C 10D 4S JS", hands=[W, A, B, V])
    view = t.view(None)
    assert view["order"] == [4, 1, 2, 3]
    assert len(view["toss"]) == 6
    assert sorted(hand(t, 4)) == sorted(W.split())
    assert sorted(hand(t, 1)) == sorted(A.split())
    # Classic settles both ties: 10 10 (4S, JS: seat 4 first), then 6 6 (5D, 3S: seat 1 first).
    classic = tossed("classic", 4, "6D 10H 6C 10D 4S JS 5D 3S")
    assert classic.view(None)["order"] == [4, 2, 1, 3]


def test_a_game_with_a_toss_is_freed_without_the_cycle_collector() -> None:
    # A simulation or a server makes table after table: each should go as soon as it is
    # dropped, not wait (with all it holds) for a full collection.
    t = tossed("classic", 4, "JS 6D JD 6C 4S 10H 5D 10D", hands=[W, A, B, V])
    game = weakref.ref(t.game)
    collecting = gc.isenabled()
    gc.disable()
    try:
        del t
        assert game() is None
    finally:
        if collecting:
            gc.enable()


def test_dealing_one_card_at_a_time_cut_is_the_last_closed_card() -> None:
    t = table([W, A, B], cut="7C", open_card="2H", stock="6D 6C", order=(2, 3, 1))
    # Turn order 2, 3, 1: the first hand goes to seat 2.
    assert sorted(hand(t, 2)) == sorted(W.split())
    assert sorted(hand(t, 3)) == sorted(A.split())
    assert sorted(hand(t, 1)) == sorted(B.split())
    view = t.view(None)
    assert (view["cut"], view["wild_rank"], view["open"]) == ("7C", "7", ["2H"])
    assert view["closed"] == 106 - 3 * 13 - 1  # the cut card is part of the closed deck
    t.do("p2 draw closed")
    assert drew(t) == "6D"
    # The public event says who drew from where; only the drawer learns the card.
    public, private = t.last
    assert (public.kind, public.to, public.data["from"]) == ("draw", None, "closed")
    assert "card" not in public.data
    assert (private.kind, private.to) == ("drew", frozenset({2}))


def test_printed_joker_cut_makes_aces_wild() -> None:
    # 10C JC AS is a sequence only with the ace standing in for the queen.
    w = "2D 3D 4D 5D 10C JC AS KD KS KC 8S 8H 8D"
    t = table([w, A], cut="JK", stock="9C")
    assert t.view(None)["wild_rank"] == "A"
    t.play("""
        p1 draw closed
        p1 declare 9C | 2D 3D 4D 5D | 10C JC AS | KD KS KC | 8S 8H 8D
    """)
    assert t.view(None)["winner"] == 1
    assert t.view(None)["phase"] == "show"


def test_a_deal_must_be_the_whole_shoe() -> None:
    game = Indian13(config())
    t = Table(game, [tuple(shoe(2, 1))[:-1]])
    t.do("p0 deal ! invalid_cards")
    t.decks = [(*shoe(2, 1)[:-1], parse("AS"))]
    t.do("p0 deal ! invalid_cards")
    # Plain notation (no copy numbers) is matched by value.
    t.decks = [tuple(parse(str(card)) for card in shoe(2, 1))]
    t.do("p0 deal")
    assert t.view(1)["phase"] == "play"


# --- the open pile ---------------------------------------------------------------------------


def test_classic_wild_first_open_card_only_for_the_first_mover() -> None:
    t = table([W, A, B], open_card="7H")
    assert "draw open" in t.game.legal(1)
    t.do("p1 draw open")
    assert "7H" in hand(t, 1)

    t = table([W, A, B], open_card="7H")
    t.do("p1 drop")
    assert "draw open" not in t.game.legal(2)
    assert t.view(None)["may_take_open"] is False
    t.do("p2 draw open ! illegal_action")
    t.do("p2 draw closed")


def test_classic_wild_first_open_card_stays_blocked_after_a_missed_turn() -> None:
    t = table([W, A, B], open_card="JK")
    t.do("p1 timeout @60000")
    t.do("p2 draw open ! illegal_action")


def test_vengala_wild_first_open_card_for_anyone() -> None:
    t = table([W, A, B], open_card="7H", profile="vengala")
    t.play("""
        p1 drop
        p2 draw open
    """)
    assert "7H" in hand(t, 2)


def test_classic_discarded_wild_blocked_for_the_next_player_only() -> None:
    t = table([W, A, B], stock="7H")
    t.play("""
        p1 draw closed
        p1 discard 7H
        p2 draw open ! illegal_action
    """)
    assert "draw open" not in t.game.legal(2)
    t.play("""
        p2 drop
        p3 draw open
    """)
    assert "7H" in hand(t, 3)


def test_vengala_discarded_wild_may_be_taken() -> None:
    t = table([W, A, B], stock="7H", profile="vengala")
    t.play("""
        p1 draw closed
        p1 discard 7H
        p2 draw open
    """)
    assert "7H" in hand(t, 2)


def test_open_pile_is_public_top_last() -> None:
    t = table([W, A], stock="6D 6C")
    pass_turn(t, 1)
    pass_turn(t, 2)
    assert t.view(None)["open"] == ["2H", "6D", "6C"]
    t.do("p1 draw open")
    assert t.view(2)["open"] == ["2H", "6D"]


# --- the closed deck runs out ----------------------------------------------------------------


def test_empty_closed_deck_is_refilled_by_the_house() -> None:
    t = table([W, A], stock=JUNK)
    closed = t.view(None)["closed"]
    last = ""
    for turn in range(closed):
        last = pass_turn(t, 1 + turn % 2)
    assert last == "7C"  # the cut card is the closed deck's last card
    view = t.view(None)
    assert view["closed"] == 0
    assert view["phase"] == "reshuffle"
    assert t.game.awaited() == [Awaited(HOUSE, "reshuffle", None)]
    assert t.game.legal(HOUSE) == ["deal"]
    mover = view["turn"]
    t.do(f"p{mover} draw closed ! illegal_action")
    t.do(f"p{3 - mover} draw closed ! not_your_turn")
    under = [parse(card) for card in view["open"][:-1]]
    top = view["open"][-1]
    t.decks = [tuple(under[1:])]
    t.do("p0 deal ! invalid_cards")  # a card missing
    t.decks = [(*under, parse(top))]
    t.do("p0 deal ! invalid_cards")  # the top card must stay
    t.decks = [tuple(reversed(under))]
    t.do("p0 deal")
    assert t.game.awaited() == [Awaited(mover, "turn", t.at + 60_000)]  # a fresh turn clock
    view = t.view(None)
    assert view["open"] == [top]
    assert view["closed"] == len(under)
    assert view["phase"] == "play"
    t.do(f"p{mover} draw closed")
    assert drew(t) == str(under[-1])


# --- drops -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "mode", "first", "middle"),
    [
        ("classic", "points", 20, 40),
        ("vengala", "points", 10, 30),
        ("classic", "pool101", 20, 40),
        ("vengala", "pool101", 20, 40),
        ("classic", "pool201", 25, 50),
        ("vengala", "pool201", 25, 50),
    ],
)
def test_drop_scores(profile: str, mode: str, first: int, middle: int) -> None:
    t = table([W, A, B], stock=JUNK, profile=profile, mode=mode)
    t.do("p1 drop")
    assert t.seat(1)["score"] == first
    assert t.seat(1)["status"] == "dropped"
    assert t.seat(1)["cards"] == 0
    pass_turn(t, 2)
    pass_turn(t, 3)
    t.do("p2 drop")
    assert t.seat(2)["score"] == middle
    # Only seat 3 is left: it wins without declaring.
    view = t.view(None)
    assert view["winner"] == 3
    assert view["history"][-1]["scores"] == {"1": first, "2": middle, "3": 0}


def test_drop_only_before_drawing() -> None:
    t = table([W, A, B], stock=JUNK)
    t.play("""
        p2 drop ! not_your_turn
        p1 draw closed
        p1 drop ! illegal_action
        p1 drop now ! bad_action
    """)
    assert "drop" not in t.game.legal(1)


def test_last_player_standing_wins_with_zero() -> None:
    t = table([W, A, B], stock=JUNK, point_value=3)
    t.play("""
        p1 drop
        p2 drop
    """)
    result = t.game.result
    assert result is not None
    assert result.winners == (3,)
    assert dict(result.points) == {1: 20, 2: 20, 3: 0}
    assert result.postings == (
        Posting("seat:1", -60),
        Posting("seat:2", -60),
        Posting("seat:3", 120),
    )


# --- timers, extra time and missed turns -----------------------------------------------------


def test_extra_time_bank_is_used_when_turn_time_runs_out() -> None:
    t = table([W, A], stock=JUNK)
    assert t.game.awaited() == [Awaited(1, "turn", 60_000)]
    t.play("""
        p1 draw closed @35000
    """)
    assert t.seat(1)["bank"] == 25_000
    t.play("""
        p1 discard 5H @38000 ! invalid_cards
        p1 declare 6D | AD ! invalid_cards
        p1 drop @39000 ! illegal_action
        p1 discard 6D @40000
    """)
    assert t.seat(1)["bank"] == 20_000
    assert t.game.awaited() == [Awaited(2, "turn", 100_000)]
    t.play("""
        p2 draw closed @41000
        p2 discard 6C @42000
    """)
    assert t.seat(2)["bank"] == 30_000
    # Seat 1 now has its 30 s plus the 20 s left in its bank.
    assert t.game.awaited() == [Awaited(1, "turn", 92_000)]
    t.play("""
        p1 draw closed @92001 ! too_late
        p1 timeout @91999 ! too_early
        p1 timeout @92000
    """)
    assert t.seat(1)["bank"] == 0
    assert t.seat(1)["missed"] == 1
    assert t.game.awaited() == [Awaited(2, "turn", 152_000)]


def test_missed_turns_discard_the_drawn_card_and_three_remove_the_player() -> None:
    t = table([W, A, B], stock=JUNK)
    t.play("""
        p1 timeout @59999 ! too_early
        p2 timeout @60000 ! not_your_turn
        p1 timeout @60000
    """)
    assert t.kinds() == ["missed", "turn"]
    assert (t.seat(1)["missed"], t.seat(1)["bank"]) == (1, 0)
    assert t.view(None)["turn"] == 2
    pass_turn(t, 2)
    pass_turn(t, 3)
    # Seat 1 draws, then runs out of time: the drawn card goes to the open pile.
    t.do("p1 draw closed")
    card = drew(t)
    start = t.at - 1000
    t.do(f"p1 timeout @{start + 30_000}")
    assert t.view(None)["open"][-1] == card
    assert len(hand(t, 1)) == 13
    assert card not in hand(t, 1)
    assert t.seat(1)["missed"] == 2
    pass_turn(t, 2)
    pass_turn(t, 3)
    t.do(f"p1 timeout +{30_000}")
    removed = t.seat(1)
    assert (removed["status"], removed["score"], removed["cards"]) == ("removed", 40, 0)
    assert "removed" in t.kinds()
    assert t.view(None)["turn"] == 2  # the others play on


def test_a_completed_turn_resets_the_missed_count() -> None:
    t = table([W, A], stock=JUNK)
    t.do("p1 timeout @60000")
    pass_turn(t, 2)
    t.do("p1 timeout +30000")
    assert t.seat(1)["missed"] == 2
    pass_turn(t, 2)
    t.do("p1 draw closed")
    t.do("p1 discard 5H ! invalid_cards")  # a refused action is no completed turn
    assert t.seat(1)["missed"] == 2
    t.do("p1 discard " + drew(t))
    pass_turn(t, 2)
    pass_turn(t, 1)
    assert t.seat(1)["missed"] == 0


def test_vengala_removal_scores_its_middle_drop() -> None:
    t = table([W, A, B], stock=JUNK, profile="vengala")
    t.do("p1 timeout @60000")
    for _ in range(2):
        pass_turn(t, 2)
        pass_turn(t, 3)
        t.do("p1 timeout +30000")
    assert (t.seat(1)["status"], t.seat(1)["score"]) == ("removed", 30)


# --- declaring -------------------------------------------------------------------------------


def test_valid_declaration_with_groups_opens_the_show_phase() -> None:
    t = table([W, A, B], stock="9C")
    t.play(f"""
        p1 draw closed @1000
        p1 {W_DECLARE} @2000
    """)
    view = t.view(None)
    assert (view["phase"], view["winner"]) == ("show", 1)
    assert t.seat(1)["shown"] == [s.split() for s in W_DECLARE.split(" | ")[1:]]
    assert t.seat(1)["finish"] == "9C"
    assert t.game.awaited() == [Awaited(2, "show", 62_000), Awaited(3, "show", 62_000)]
    assert t.game.legal(2) == ["show <groups>", "group <groups>"]
    t.play(f"""
        p1 show {A_GROUPS} ! illegal_action
        p2 show {B_GROUPS} ! invalid_cards
        p2 show 4H 5H 6H ! invalid_cards
        p2 show {A_GROUPS}
        p2 show {A_GROUPS} ! illegal_action
    """)
    # Scores of losers stay private to them until the deal ends.
    assert t.seat(2, viewer=3)["score"] is None
    assert t.seat(2, viewer=3)["shown"] is None
    assert t.seat(2, viewer=2)["score"] == 11
    # The views of one state built together (Game.views, as a room builds them for its
    # watchers) share what every viewer sees, built once, the seat's own entry apart where it
    # holds what only the seat sees. Each is the view that seat gets alone.
    mine, theirs, spectators = t.game.views([2, 3, None])
    assert (mine, theirs, spectators) == (t.view(2), t.view(3), t.view(None))
    assert mine["open"] is theirs["open"] is spectators["open"]
    assert theirs["seats"] is spectators["seats"] and mine["seats"] is not spectators["seats"]
    assert [e for e in mine["seats"] if e["seat"] != 2] == [
        e for e in spectators["seats"] if e["seat"] != 2
    ]
    # Nothing of them is kept: views built alone share nothing, and the next action's are new.
    assert t.view(3)["open"] is not t.view(None)["open"]
    t.do(f"p3 show {B_GROUPS}")
    assert t.seat(2, viewer=3)["score"] == 11
    result = t.game.result
    assert result is not None
    # Seat 2 and 3 never had a turn: deal show, half their count.
    assert dict(result.points) == {1: 0, 2: 11, 3: 32}
    assert t.seat(3, viewer=2)["shown"] == [g.split() for g in B_GROUPS.split(" | ")]


def test_wrong_declaration_scores_80_and_play_goes_on() -> None:
    t = table([W, A, B], stock="9C 6D")
    t.play("""
        p1 draw closed
        p1 declare 9C | AD 2D 3D 4D | 10C JC QC | KD KS | KC 8S 8H 8D
    """)
    entry = t.seat(1, viewer=2)
    assert (entry["status"], entry["score"], entry["cards"]) == ("wrong", 80, 0)
    # A confirmed wrong declaration is shown to everyone, finish card included.
    assert entry["finish"] == "9C"
    assert entry["shown"][1] == ["10C", "JC", "QC"]
    view = t.view(None)
    assert (view["phase"], view["turn"], view["winner"]) == ("play", 2, None)
    assert view["open"] == ["2H"]  # the finish card left play
    t.play("""
        p2 draw closed
        p2 discard 6D
        p3 drop
    """)
    result = t.game.result
    assert result is not None
    assert dict(result.points) == {1: 80, 2: 0, 3: 20}


def test_wrong_declaration_with_two_players_ends_the_deal() -> None:
    t = table([W, A], stock="9C")
    t.play("""
        p1 draw closed
        p1 declare 9C | AD 2D 3D | 4D 10C JC QC | KD KS KC | 8S 8H 8D
    """)
    result = t.game.result
    assert result is not None
    assert (result.winners, dict(result.points)) == ((2,), {1: 80, 2: 0})


def test_declare_then_show() -> None:
    t = table([W, A], stock="9C")
    t.play("""
        p1 declare 9C ! illegal_action
        p1 draw closed
        p1 declare 5C ! invalid_cards
        p1 declare 9C 8S ! bad_action
        p1 declare 9C | ! bad_action
        p1 declare 9C | AD 2D 3D 4D ! invalid_cards
        p1 declare 9C @5000
    """)
    assert t.game.awaited() == [Awaited(1, "declare", 65_000)]
    assert t.view(1)["finish"] == "9C"
    # The finish card is hidden from everyone else until the declaration is judged.
    for viewer in (None, 2):
        assert "finish" not in t.view(viewer)
        assert "finish" not in t.seat(1, viewer)
        assert "9C" not in json.dumps(t.view(viewer)["seats"])
    assert len(hand(t, 1)) == 13
    t.play(f"""
        p2 show {A_GROUPS} ! not_your_turn
        p1 draw closed ! illegal_action
        p1 show AD 2D 3D 4D ! invalid_cards
        p1 show {W_DECLARE.split(" | ", 1)[1]} @40000
    """)
    assert t.seat(1)["bank"] == 25_000
    assert t.view(None)["phase"] == "show"
    assert t.game.awaited() == [Awaited(2, "show", 100_000)]


def test_declare_then_invalid_show_is_a_wrong_declaration() -> None:
    t = table([W, A, B], stock="9C")
    t.play("""
        p1 draw closed
        p1 declare 9C
        p1 show AD 2D 3D 4D 10C JC QC KD KS KC 8S 8H 8D
    """)
    assert (t.seat(1)["status"], t.seat(1)["score"]) == ("wrong", 80)
    assert t.view(None)["turn"] == 2


def test_declare_time_runs_out() -> None:
    t = table([W, A, B], stock="9C")
    t.play("""
        p1 draw closed @1000
        p1 declare 9C @2000
        p1 timeout @61999 ! too_early
        p1 timeout @62000
    """)
    entry = t.seat(1, viewer=2)
    assert (entry["status"], entry["score"]) == ("wrong", 80)
    assert "finish" not in entry and entry["shown"] is None  # nothing was confirmed
    assert t.view(None)["turn"] == 2
    assert t.game.awaited() == [Awaited(2, "turn", 62_000 + 60_000)]


# --- the losers' show and their scores -------------------------------------------------------


def after_a_round(losers: Sequence[str], **kw: Any) -> Table:
    """Seat 1 holds W; every seat plays one turn, then seat 1 declares validly."""
    t = table([W, *losers], stock=" ".join(JUNK.split()[: 1 + len(losers)]) + " 9C", **kw)
    for seat in range(1, len(losers) + 2):
        pass_turn(t, seat)
    t.play(f"""
        p1 draw closed
        p1 {W_DECLARE}
    """)
    return t


@pytest.mark.parametrize(
    ("profile", "loser", "groups", "score"),
    [
        ("classic", A, A_GROUPS, 23),
        ("vengala", A, A_GROUPS, 80),  # 87, capped
        ("classic", B, B_GROUPS, 65),
        ("vengala", B, B_GROUPS, 74),
        ("classic", V, V_GROUPS, 2),  # a valid hand of their own
        ("vengala", V, V_GROUPS, 2),
        ("classic", L, L_GROUPS, 3),
        # Everything melded but one wild card: nothing to count, so the 2 of a complete hand.
        ("classic", A0, A0_GROUPS, 2),
    ],
)
def test_loser_scores_from_shown_groups(profile: str, loser: str, groups: str, score: int) -> None:
    t = after_a_round([loser], profile=profile)
    t.do(f"p2 show {groups}")
    result = t.game.result
    assert result is not None
    assert dict(result.points) == {1: 0, 2: score}


def test_show_timeout_uses_the_last_arrangement() -> None:
    t = table([W, A], stock="6D 6C 9C")
    t.do(f"p2 group {A_GROUPS}")
    pass_turn(t, 1)
    pass_turn(t, 2)  # the drawn card joins the arrangement, then leaves it again
    assert t.view(2)["arrangement"] == [g.split() for g in A_GROUPS.split(" | ")]
    t.play(f"""
        p1 draw closed
        p1 {W_DECLARE} @10000
        p2 timeout @69999 ! too_early
        p2 timeout @70000
    """)
    result = t.game.result
    assert result is not None
    assert dict(result.points) == {1: 0, 2: 23}
    assert result.detail["deals"][0]["how"]["2"] == "arrangement"


def test_show_timeout_without_arrangement_counts_every_card() -> None:
    t = after_a_round([A, B])
    t.do(f"p2 show {A_GROUPS}")
    t.do("p3 timeout +60000")
    result = t.game.result
    assert result is not None
    # B with every card counted: 9 + 30 + 16 + 19 = 74.
    assert dict(result.points) == {1: 0, 2: 23, 3: 74}
    assert result.detail["deals"][0]["how"]["3"] == "all cards"


def test_show_timeout_everything_counts_capped_at_80() -> None:
    t = after_a_round([A])
    t.do("p2 timeout +60000")
    assert t.game.result is not None
    assert dict(t.game.result.points) == {1: 0, 2: 80}


@pytest.mark.parametrize(
    ("profile", "loser", "groups", "score"),
    [
        ("classic", A, A_GROUPS, 11),  # 23 // 2
        ("classic", B, B_GROUPS, 32),  # 65 // 2
        ("vengala", A, A_GROUPS, 40),  # 80 // 2
        ("vengala", B, B_GROUPS, 37),  # 74 // 2
        ("classic", L, L_GROUPS, 2),  # 3 // 2 = 1, at least 2
        ("classic", V, V_GROUPS, 2),
        ("classic", A, None, 40),  # nothing shown: 87, capped at 80, halved
    ],
)
def test_deal_show_halves_the_score(
    profile: str, loser: str, groups: str | None, score: int
) -> None:
    t = table([W, loser], stock="9C", profile=profile)
    t.play(f"""
        p1 draw closed
        p1 {W_DECLARE}
    """)
    t.do(f"p2 show {groups}" if groups else "p2 timeout +60000")
    result = t.game.result
    assert result is not None
    assert dict(result.points) == {1: 0, 2: score}
    assert result.detail["deals"][0]["deal_show"] == [2]


def test_a_player_who_had_a_turn_gets_no_deal_show() -> None:
    # Seat 3 missed its turn but it was its turn: no halving.
    t = table([W, A, B], stock="6D 6C 9C")
    pass_turn(t, 1)
    pass_turn(t, 2)
    t.do("p3 timeout +60000")
    t.play(f"""
        p1 draw closed
        p1 {W_DECLARE}
        p2 show {A_GROUPS}
        p3 show {B_GROUPS}
    """)
    assert t.game.result is not None
    assert dict(t.game.result.points) == {1: 0, 2: 23, 3: 65}


@pytest.mark.parametrize(
    ("profile", "scores"),
    [("classic", {1: 0, 2: 23, 3: 65, 4: 40}), ("vengala", {1: 0, 2: 80, 3: 74, 4: 30})],
)
def test_points_settlement(profile: str, scores: dict[int, int]) -> None:
    """The rules page's example: 2 chips a point; B 23, C 65, D dropped in the middle."""
    t = table([W, A, B, V], stock="6D 6C JS 10H 5D 4S JD 9C", profile=profile, point_value=2)
    for seat in (1, 2, 3, 4, 1, 2, 3):
        pass_turn(t, seat)
    t.play(f"""
        p4 drop
        p1 draw closed
        p1 {W_DECLARE}
        p2 show {A_GROUPS}
        p3 show {B_GROUPS}
    """)
    result = t.game.result
    assert result is not None
    assert dict(result.points) == scores
    assert result.winners == (1,)
    expected = [Posting(f"seat:{s}", -2 * pts) for s, pts in scores.items() if pts]
    expected.append(Posting("seat:1", 2 * sum(scores.values())))
    assert list(result.postings) == expected
    assert sum(p.amount for p in result.postings) == 0
    assert t.kinds()[-1] == "game_over"
    t.do("p2 draw closed ! game_over")
    assert t.game.awaited() == []
    assert t.game.legal(1) == []


# --- arranging ---------------------------------------------------------------------------


def test_group_is_private_and_not_a_move() -> None:
    t = table([W, A, B], stock=JUNK)
    awaited = t.game.awaited()
    t.play("""
        p2 group AD 2D 3D ! invalid_cards
        p2 group 4H 5H 6H ! invalid_cards
        p2 group ! bad_action
        p2 group ZZ ! invalid_cards
    """)
    t.do(f"p2 group {A_GROUPS} @20000")
    assert t.last == [
        Event("group", {"groups": [g.split() for g in A_GROUPS.split(" | ")]}, frozenset({2}))
    ]
    assert t.game.awaited() == awaited  # no timer moved
    assert t.view(2)["arrangement"] == [g.split() for g in A_GROUPS.split(" | ")]
    assert t.view(3)["arrangement"] is None
    assert "arrangement" not in t.view(None)
    assert t.game.log[-1] == {"seat": 2, "action": f"group {A_GROUPS}", "at": 20_000}
    # The player to move may group 14 cards; a dropped player has nothing to group.
    t.do("p1 draw closed")
    t.do(f"p1 group {W} 6D")
    assert "group <groups>" in t.game.legal(1)
    t.play("""
        p1 discard 6D
        p2 timeout +60000
    """)
    assert t.seat(2)["missed"] == 1
    t.do(f"p2 group {A}")
    assert t.seat(2)["missed"] == 1
    t.do("p3 drop")
    t.do(f"p3 group {B} ! illegal_action")


def test_group_duplicates_map_to_any_copy() -> None:
    t = table([W, B], stock="8S")
    t.do("p1 draw closed")
    # Two 8S are held: either may be named; the discard takes the loose one.
    t.do("p1 group AD 2D 3D 4D | 10C JC QC | KD KS KC | 8S 8H 8D | 8S")
    t.do("p1 discard 8S")
    assert t.view(1)["arrangement"] == [
        ["AD", "2D", "3D", "4D"],
        ["10C", "JC", "QC"],
        ["KD", "KS", "KC"],
        ["8S", "8H", "8D"],
    ]


def test_groups_take_copies_in_hand_order_and_say_what_is_wrong() -> None:
    t = table([W, B], stock="8S")
    t.do("p1 draw closed")
    held = [card for card in t.game.players[1].hand if str(card) == "8S"]
    assert len(held) == 2 and held[0].copy != held[1].copy
    # The first 8S named is the copy held first.
    t.do("p1 group 8S | AD 2D 3D 4D | 10C JC QC | KD KS KC | 8S 8H 8D")
    laid = t.game.players[1].arrangement
    assert laid is not None and laid[0][0].physical == held[0].physical
    assert laid[4][0].physical == held[1].physical
    twice = t.refused(1, "group 8S 8S 8S | AD 2D 3D 4D", t.at, "invalid_cards", None)
    assert twice.message == "8S is not among your cards (or is used twice)"
    short = t.refused(1, "group AD 2D 3D 4D | KD KS KC", t.at, "invalid_cards", None)
    assert short.message == "the groups leave out 10C JC QC 8S 8H 8D 8S"


# --- legal actions ---------------------------------------------------------------------------


def test_legal_actions() -> None:
    game = Indian13(config())
    assert game.legal(HOUSE) == ["deal"]
    assert game.legal(1) == []
    t = table([W, A], stock="9C")
    assert t.game.legal(HOUSE) == []
    assert t.game.legal(1) == ["draw open", "draw closed", "drop", "group <groups>"]
    assert t.game.legal(2) == ["group <groups>"]
    t.do("p1 draw closed")
    legal = t.game.legal(1)
    assert "discard 9C" in legal and "declare 9C" in legal and "discard AD" in legal
    assert len([a for a in legal if a.startswith("discard ")]) == 14
    assert "declare <card> | <groups>" in legal
    with pytest.raises(GameError) as info:
        t.game.legal(7)
    assert info.value.code == "unknown_seat"


# --- errors --------------------------------------------------------------------------------


def test_every_error_code_leaves_the_game_unchanged() -> None:
    t = table([W, A], stock="9C")
    t.play("""
        p2 draw closed ! not_your_turn
        p1 discard AD ! illegal_action
        p1 draw sideways ! bad_action
        p1 fly ! bad_action
        p1 deal ! bad_action
        p0 draw closed ! bad_action
        p9 draw closed ! unknown_seat
        p1 timeout ! too_early
        p1 draw closed
        p1 discard 5H ! invalid_cards
        p1 discard 5X ! invalid_cards
        p1 discard AD KD ! bad_action
        p1 draw closed ! illegal_action
        p2 rejoin ! illegal_action
        p0 deal ! illegal_action
        p1 discard AD @500 ! bad_action
    """)
    t.do("p1 drop ! illegal_action")
    t.play("""
        p1 discard 9C
        p2 drop
        p1 draw closed ! game_over
    """)
    assert set(ERROR_CODES) == {
        "bad_action",
        "not_your_turn",
        "illegal_action",
        "invalid_cards",
        "game_over",
        "unknown_seat",
        "too_early",
        "too_late",  # exercised in test_extra_time_bank_is_used_when_turn_time_runs_out
    }


# --- pools -------------------------------------------------------------------------------------


def pool_table(mode: str, seats: int = 3, **kw: Any) -> Table:
    game = Indian13(config("classic", seats, mode, entry_fee=50, **kw))
    decks = [Deal.of_fair(FairDeal(b"seed" * 8, "pool", n), *game.shoe()) for n in range(9)]
    return Table(game, decks)


def totals(t: Table) -> dict[int, int]:
    return {entry["seat"]: entry["total"] for entry in t.view(None)["seats"]}


def test_pool_101_elimination_rejoin_and_winner_takes_the_pot() -> None:
    t = pool_table("pool101", rake_percent=10)
    events = t.do("p0 deal @0")
    deal = next(e for e in events if e.kind == "deal")
    assert deal.postings == (
        Posting("seat:1", -50),
        Posting("seat:2", -50),
        Posting("seat:3", -50),
        Posting("pot", 150),
    )
    # Deal 1 (seat 1 first): 1 declares wrongly (80), 2 drops (20), 3 is left.
    declare_wrong(t, 1)
    t.do("p2 drop")
    assert totals(t) == {1: 80, 2: 20, 3: 0}
    assert t.view(None)["phase"] == "between"
    assert t.game.awaited() == [Awaited(HOUSE, "deal", None)]
    assert t.game.legal(1) == []  # nobody is out, so nobody rejoins
    # Deal 2: the first move passes to seat 2.
    t.do("p0 deal")
    assert t.view(None)["first"] == 2
    assert t.view(None)["order"] == [2, 3, 1]
    t.do("p2 drop")
    pass_turn(t, 3)
    declare_wrong(t, 1)
    assert totals(t) == {1: 160, 2: 40, 3: 0}
    assert t.seat(1)["status"] == "eliminated"
    assert t.view(None)["history"][-1]["eliminated"] == [1]
    # Everyone left is at 79 or less: seat 1 may buy back in, on 40 + 1.
    assert t.game.legal(1) == ["rejoin"]
    t.do("p2 rejoin ! illegal_action")
    events = t.do("p1 rejoin")
    assert events[0].postings == (Posting("seat:1", -50), Posting("pot", 50))
    assert totals(t)[1] == 41
    assert t.view(None)["pool"]["pot"] == 200
    # Deal 3 (seat 3 first): 3 and 1 declare wrongly; 1 is out again (121), 3 on 80.
    t.do("p0 deal")
    assert t.view(None)["first"] == 3
    declare_wrong(t, 3)
    declare_wrong(t, 1)
    assert totals(t) == {1: 121, 2: 40, 3: 80}
    # Seat 3 is above 79 now: no rejoining.
    assert t.view(None)["pool"]["rejoin_open"] is False
    assert t.game.legal(1) == []
    t.do("p1 rejoin ! illegal_action")
    # Deal 4: seat 1 is out, so the first move skips it and goes to seat 2.
    t.do("p0 deal")
    assert t.view(None)["first"] == 2
    assert t.view(None)["order"] == [2, 3]
    assert t.seat(1)["cards"] == 0
    declare_wrong(t, 2)
    result = t.game.result
    assert result is not None
    assert result.winners == (3,)
    assert dict(result.points) == {1: 121, 2: 120, 3: 80}
    assert result.postings == (
        Posting("pot", -200),
        Posting("seat:3", 180),
        Posting("house", 20),
    )
    assert result.detail["rake"] == 20


def test_pool_201_limits() -> None:
    t = pool_table("pool201")
    t.do("p0 deal @0")
    declare_wrong(t, 1)
    t.do("p2 drop")
    assert totals(t) == {1: 80, 2: 25, 3: 0}
    t.do("p0 deal")  # seat 2 first
    declare_wrong(t, 2)
    t.do("p3 drop")
    assert totals(t) == {1: 80, 2: 105, 3: 25}  # 105 is still in a 201 pool
    t.do("p0 deal")  # seat 3 first
    declare_wrong(t, 3)
    pass_turn(t, 1)
    t.do("p2 drop")
    assert totals(t) == {1: 80, 2: 130, 3: 105}
    t.do("p0 deal")  # seat 1 first
    declare_wrong(t, 1)
    declare_wrong(t, 2)
    assert totals(t) == {1: 160, 2: 210, 3: 105}
    assert t.seat(2)["status"] == "eliminated"
    assert t.view(None)["pool"]["rejoin_open"] is True  # 160 <= 174
    t.do("p2 rejoin")
    assert totals(t)[2] == 161
    assert t.game.result is None


def test_pool_missed_turns_score_the_pools_middle_drop() -> None:
    t = pool_table("pool201")
    t.do("p0 deal @0")
    t.do("p1 timeout +60000")
    for seat in (2, 3):
        pass_turn(t, seat)
    t.do("p1 timeout +30000")
    for seat in (2, 3):
        pass_turn(t, seat)
    t.do("p1 timeout +30000")
    assert (t.seat(1)["status"], t.seat(1)["score"]) == ("removed", 50)


# --- views ------------------------------------------------------------------------------------


def test_views_show_only_what_the_seat_may_see() -> None:
    # Two games that differ only in seat 2's hidden cards look the same to seat 1 and spectators.
    one = table([W, A, B], stock=JUNK)
    two = table([W, V, B], stock=JUNK)
    for t in (one, two):
        pass_turn(t, 1)
        t.do(f"p2 group {' '.join(hand(t, 2))}")
        t.do("p2 draw closed")
        t.do("p2 discard 6C")
    for viewer in (None, 1, 3):
        assert one.view(viewer) == two.view(viewer)
    assert one.view(2) != two.view(2)
    view = one.view(2)
    assert view["hand"] == [
        "2S",
        "9S",
        "10S",
        "QS",
        "4H",
        "5H",
        "6H",
        "KH",
        "7D",
        "8D",
        "QD",
        "3C",
        "QC",
    ]
    spectator = one.view(None)
    assert "hand" not in spectator and "arrangement" not in spectator
    for entry in spectator["seats"]:
        assert set(entry) == {"seat", "status", "cards", "missed", "bank", "score", "how", "shown"}
    # The closed deck is only a count.
    assert spectator["closed"] == 106 - 39 - 1 - 2
    json.dumps(spectator)


def test_shown_groups_stay_private_until_the_deal_ends() -> None:
    one = table([W, A, B], stock="9C")
    two = table([W, V, B], stock="9C")
    for t, groups in ((one, A_GROUPS), (two, V_GROUPS)):
        t.play(f"""
            p1 draw closed
            p1 {W_DECLARE}
            p2 show {groups}
        """)
    for viewer in (None, 1, 3):
        assert one.view(viewer) == two.view(viewer)
    for t in (one, two):
        t.do(f"p3 show {B_GROUPS}")
    assert one.seat(2, viewer=3)["shown"] == [g.split() for g in A_GROUPS.split(" | ")]
    assert two.seat(2, viewer=3)["score"] == 2


def test_hands_are_private_in_events() -> None:
    t = table([W, A], stock=JUNK)
    dealt = [e for e in t.events if e.kind == "hand"]
    assert [(e.to, sorted(e.data["cards"])) for e in dealt] == [
        (frozenset({1}), sorted(W.split())),
        (frozenset({2}), sorted(A.split())),
    ]
    assert all(e.to is None for e in t.events if e.kind != "hand")


# --- records ----------------------------------------------------------------------------------


def assert_replays(t: Table) -> None:
    record = json.loads(json.dumps(t.game.record()))
    again = replay(record)
    assert views(again) == views(t.game)
    assert again.awaited() == t.game.awaited()
    assert again.result == t.game.result
    assert again.record() == t.game.record()


def test_record_replay_round_trip() -> None:
    game = Indian13(Indian13Config(seats=3, mode="pool101", entry_fee=50, rake_percent=5))
    t = Table(game, [Deal.of_fair(FairDeal(b"seed" * 8, "toss", 0), *game.shoe())])
    t.do("p0 deal @0")  # with the toss
    first = t.view(None)["first"]
    assert t.view(None)["toss"]
    assert_replays(t)
    order = t.view(None)["order"]
    t.do(f"p{order[0]} group {' '.join(hand(t, order[0]))}")
    pass_turn(t, order[0])
    declare_wrong(t, order[1])
    t.do(f"p{order[2]} timeout +60000")
    assert_replays(t)
    assert first in order
    record = t.game.record()
    lines = [notation(entry) for entry in record["actions"]]
    assert lines[0] == "p0 deal"
    assert record["actions"][0]["deal"]["client_seed"] == "toss"
    # A replay stopped half way is the game as it was then.
    partial = replay(record, upto=3)
    assert len(partial.log) == 3


def test_replay_of_a_finished_points_game_with_explicit_cards() -> None:
    t = after_a_round([A, B])
    t.do(f"p2 show {A_GROUPS}")
    t.do("p3 timeout +60000")
    assert t.game.over
    assert_replays(t)
    record = t.game.record()
    assert "cards" in record["actions"][0]["deal"]
    assert record["result"]["points"] == {"1": 0, "2": 23, "3": 74}


# --- random games: invariants ---------------------------------------------------------------


def conserved(game: Indian13) -> list[tuple[int, int]]:
    cards: list[Card] = [*game.stock, *(entry.card for entry in game.pile), *game.dead]
    for player in game.players.values():
        cards += player.hand
        if player.finish is not None and player.status in ("playing", "won"):
            cards.append(player.finish)
    return sorted((card.code, card.copy) for card in cards)


def random_game(seed: int, profile: str, seats: int, mode: str) -> Indian13:
    rng = random.Random(seed)
    game = Indian13(Indian13Config(profile=profile, seats=seats, mode=mode, entry_fee=10))
    decks, jokers = game.shoe()
    whole = sorted((card.code, card.copy) for card in shoe(decks, jokers))
    at = 0
    nonce = 0
    for _ in range(3000):
        if game.over:
            break
        awaited = game.awaited()
        at += rng.choice((200, 1000, 5000))
        waiting = awaited[0]
        if waiting.seat == HOUSE:
            if waiting.kind == "reshuffle":
                under = game.view(None)["open"][:-1]
                rng.shuffle(under)
                deal = Deal(tuple(parse(card) for card in under))
            else:
                nonce += 1
                deal = Deal.of_fair(FairDeal(b"random" * 6, str(seed), nonce), decks, jokers)
            for seat in game.players:
                if "rejoin" in game.legal(seat) and rng.random() < 0.5:
                    game.apply(seat, "rejoin", at)
            game.apply(HOUSE, "deal", at, deal=deal)
        else:
            seat = rng.choice(awaited).seat
            deadline = next(a.deadline for a in awaited if a.seat == seat)
            assert deadline is not None
            action = choose(game, seat, rng)
            if action is None or at >= deadline or rng.random() < 0.03:
                action, at = "timeout", max(at, deadline)
            game.apply(seat, action, at)
        assert conserved(game) == whole
        assert_private(game)
    return game


def assert_private(game: Indian13) -> None:
    """No view shows another seat's cards while they are still hidden."""
    ended = game.phase in ("between", "over")
    for viewer in (None, *game.players):
        view = game.view(viewer)
        assert ("hand" in view) == (viewer is not None)
        assert ("arrangement" in view) == (viewer is not None)
        for entry in view["seats"]:
            hidden = entry["status"] in ("playing", "showing", "shown", "waiting")
            if entry["seat"] != viewer and hidden and not ended:
                assert entry["shown"] is None
                assert entry["score"] is None
                assert "finish" not in entry


def choose(game: Indian13, seat: int, rng: random.Random) -> str | None:
    legal = game.legal(seat)
    player = game.players[seat]
    cut = game.cut
    assert cut is not None
    best = arrange(player.hand, joker=cut, profile=game.rules.melds)
    # Loose cards (vengala: spare jokers too) are shown as one more group.
    laid = [*best.groups, *([best.leftover] if best.leftover else [])]
    groups = format_groups(laid)
    if "group <groups>" in legal and rng.random() < 0.05:
        spare = [[best.discard]] if best.discard is not None else []
        return "group " + format_groups([*laid, *spare])
    if "show <groups>" in legal:
        return f"show {groups}" if rng.random() < 0.8 else None
    if "draw closed" in legal:
        if rng.random() < 0.08:
            return "drop"
        return rng.choice([a for a in legal if a.startswith("draw")])
    if any(a.startswith("discard") for a in legal):
        if best.declarable and best.discard is not None:
            return f"declare {best.discard} | {groups}"
        if rng.random() < 0.02:
            return rng.choice([a for a in legal if a.startswith("declare ") and "<" not in a])
        return rng.choice([a for a in legal if a.startswith("discard")])
    return None


@pytest.mark.parametrize(
    ("seed", "profile", "seats", "mode"),
    [
        (1, "classic", 2, "points"),
        (2, "classic", 6, "points"),
        (3, "vengala", 5, "points"),
        (4, "vengala", 3, "pool101"),
        (5, "classic", 4, "pool201"),
        (6, "vengala", 2, "points"),
        (7, "classic", 3, "pool101"),
        (8, "vengala", 4, "pool201"),
        (9, "classic", 5, "pool101"),
        (10, "vengala", 5, "pool101"),
    ],
)
def test_random_games_keep_the_invariants_and_replay(
    seed: int, profile: str, seats: int, mode: str
) -> None:
    game = random_game(seed, profile, seats, mode)
    assert game.over
    result = game.result
    assert result is not None
    assert sum(p.amount for p in result.postings) == 0
    again = replay(json.loads(json.dumps(game.record())))
    assert views(again) == views(game)
    assert again.result == result


# --- documentation ---------------------------------------------------------------------------


RECORDS_DOC = Path(__file__).parents[2] / "docs" / "records.md"


def test_records_doc_example_game_plays_as_described() -> None:
    text = RECORDS_DOC.read_text(encoding="utf-8")
    block = text.split("### A short game, as printed", 1)[1].split("```")[1]
    t = Table(Indian13(config()), [stacked([W, A], "7C", "2H", "6D 9C")])
    for line in block.strip().splitlines():
        if line.endswith("timeout"):
            (awaited,) = t.game.awaited()
            line += f" @{awaited.deadline}"
        t.do(line)
    result = t.game.result
    assert result is not None
    assert dict(result.points) == {1: 0, 2: 23}
    assert result.detail["deals"][0]["how"]["2"] == "arrangement"
    assert [notation(entry) for entry in t.game.record()["actions"]] == block.strip().splitlines()


def test_records_doc_names_every_action() -> None:
    text = RECORDS_DOC.read_text(encoding="utf-8")
    for line in (
        "p0 deal",
        "p2 draw open",
        "p2 draw closed",
        "p2 discard 7H",
        "p1 declare 7H",
        "p3 group",
        "p3 show",
        "p4 drop",
        "p2 timeout",
        "p5 rejoin",
    ):
        assert line in text, line


# --- a player leaving the table mid-deal -------------------------------------------------------


def test_a_leaving_player_drops_or_throws_back_then_shows() -> None:
    """What the table plays for someone who left: a drop before drawing; after a draw, the drawn
    card back (a drop is no longer allowed); in the show phase, their own groups, or every card
    on its own (what their show timer would score)."""
    t = table([W, A, B], stock="JS 5D 6C 9C")
    assert t.game.leave_move(1) == "drop"
    assert t.game.leave_move(2) is None  # not awaited
    t.do("p1 draw closed")
    assert t.game.leave_move(1) == "discard JS"
    t.do(f"p1 {t.game.leave_move(1)}")
    t.do(f"p2 group {A_GROUPS}")
    pass_turn(t, 2)
    pass_turn(t, 3)
    t.do("p1 draw closed")
    t.do(f"p1 {W_DECLARE}")
    assert t.game.leave_move(1) is None
    assert t.game.leave_move(2) == f"show {A_GROUPS}"
    singles = t.game.leave_move(3)
    assert singles == "show " + " | ".join(B.split())
    t.do(f"p2 {t.game.leave_move(2)}")
    t.do(f"p3 {singles}")
    assert t.game.over
    assert dict(t.game.result.points)[2] == 23  # the page's first example, as grouped
    assert dict(t.game.result.points)[3] == 74  # every card loose (the wild 7S counts 0)


def test_every_view_names_the_hand_as_it_is_after_every_action() -> None:
    # The engine sorts a hand's names again only when the hand changed (_sorted_hand): after
    # every action of bots' games, each seat's view names exactly its cards, sorted.
    from rummyhall.cards import sorted_texts
    from rummyhall.games.indian13.bot import Indian13Bot
    from rummyhall.sim import FairHouse, Runner, Tally

    class Watched(Runner):
        def apply(self, seat: int, action: str, at: int, deal: Any = None) -> Any:
            events = super().apply(seat, action, at, deal)
            game = self.game
            assert isinstance(game, Indian13)
            for player in game.players.values():
                view = game.view(player.seat)
                assert view["hand"] == sorted_texts(player.hand), (seat, action)
            return events

    actions = 0
    for seed in range(6):
        game = Indian13(Indian13Config(seats=4))
        bots = {seat: Indian13Bot(seed=seat) for seat in range(1, 5)}
        Watched(game, bots, FairHouse(seed), Tally(4)).run()
        actions += len(game.log)
    assert actions > 100
