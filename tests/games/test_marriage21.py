"""21-card Marriage Rummy: every rule as a scenario in notation (tests/scenarios.py), on stacked
decks of the three-pack shoe. The numbers are the defaults of games/marriage21/rules.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from rummyhall.cards import Card, parse, shoe
from rummyhall.games.marriage21.engine import Marriage21
from rummyhall.games.marriage21.rules import COMMON, STANDARD, Marriage21Config
from rummyhall.games.protocol import replay
from rummyhall.melds import Wilds
from rummyhall.melds.profiles import MARRIAGE21
from scenarios import Table, stacked

SIZE = COMMON.hand_size


def deck(hands: Sequence[str], cut: str, open_card: str = "9C", stock: str = "") -> list[Card]:
    """The whole three-pack shoe dealing ``hands`` (first mover's first); a hand given as ``...``
    or ending in ``...`` is filled up to 21 from the cards nobody else named, in shoe order,
    leaving out the value cards and printed jokers (its cards do not matter to the test)."""
    named = Counter(parse(t) for hand in hands for t in hand.split() if t != "...")
    named.update(parse(t) for t in (cut, open_card, *stock.split()))
    values = Wilds.of(parse(cut), MARRIAGE21).value_codes or ()
    spare = []
    for card in shoe(3, 1):
        if named[card] > 0:
            named[card] -= 1
        elif not card.is_joker and card.code not in values:
            spare.append(str(card))
    filled = []
    for hand in hands:
        tokens = [t for t in hand.split() if t != "..."]
        while len(tokens) < SIZE:
            tokens.append(spare.pop(0))
        filled.append(" ".join(tokens))
    return list(stacked(filled, cut, open_card, stock, decks=3, jokers=1, size=SIZE))


def table(seats: int, hands: Sequence[str], cut: str, stock: str = "", **config: int) -> Table:
    game = Marriage21(Marriage21Config(seats=seats, order=tuple(range(1, seats + 1)), **config))
    t = Table(game, [deck(hands, cut, stock=stock)])
    t.do("p0 deal")
    return t


STOCK = "KD QS JD"
"""The closed deck's top cards in the tests that play one round before declaring."""


def declare_after_a_round(t: Table, groups: str) -> None:
    """Seats 1 and 2 each draw and throw a card; then seat 1 draws and declares with ``groups``
    (so that seat 2 has had a turn: no deal show)."""
    first, second, finish = STOCK.split()
    t.play(
        f"""
        p1 draw closed
        p1 discard {first}
        p2 draw closed
        p2 discard {second}
        p1 draw closed
        p1 declare {finish} | {groups}
        """
    )


def nets(t: Table) -> dict[int, int]:
    result = t.game.result
    assert result is not None
    return dict(result.points)


# A winner's hand with the printed joker cut (value cards: A♠ cut, 2♠ upper, K♠ lower; aces and
# printed jokers wild): three pure sequences, two sets and an impure run with A♠ standing in.
WINNER_AS = "4D 5D 6D 7D 7C 8C 9C 10C 10H JH QH KH 8S 8D 8H 9S 9D 9H 4C 5C AS"
MARRIAGE_50 = "AS 2S KS 2H 2H 2D 2D 2D 2C 2C 2C 3S 3S 3S 3D 3D 3D 4H 4H 4D 4C"
"""A marriage (A♠ 2♠ K♠ with the printed joker cut) and 18 small cards worth 50 points."""
WINNER_GROUPS = "4D 5D 6D 7D | 7C 8C 9C 10C | 10H JH QH KH | 8S 8D 8H | 9S 9D 9H | 4C 5C AS"


def test_the_numbers_are_data() -> None:
    assert (COMMON.hand_size, COMMON.cap, COMMON.wrong_declaration) == (21, 120, 120)
    assert (STANDARD.drops.first, STANDARD.drops.middle) == (30, 70)
    assert (COMMON.deal_show_min, COMMON.deal_show_max, COMMON.missed_turn_limit) == (2, 60, 3)
    assert Marriage21().shoe() == (3, 1)
    with pytest.raises(ValueError, match="2 to 6"):
        Marriage21Config(seats=7)
    config = Marriage21Config(seats=3, point_value=5, order=(2, 3, 1))
    assert Marriage21Config.from_json(config.to_json()) == config
    with pytest.raises(ValueError, match="unknown config keys: pool"):
        Marriage21Config.from_json({"pool": 101})


def test_the_page_s_six_player_example_as_a_real_deal() -> None:
    """The rule page's table (net −52, 110, −30, −30, 72, −70, with DECISIONS' correction for
    seat 2), played: seat 5 declares; seat 1 shows six dublees (2 points) holding two lower
    jokers; seat 2 shows 50 points holding a marriage; seats 3 and 4 drop at once; seat 6 drops
    after its first turn holding a cut joker, which a dropped seat does not exchange."""
    hands = [
        # Six dublees, and the two lower jokers (K♠) in a group of their own.
        "3H 3H 7D 7D QC QC 4S 4S 10D 10D 6H 6H KS KS 2H 5S 6C JD QS 3C 10S",
        # A marriage (A♠ 2♠ K♠) and 18 small cards worth 50 points, in no meld.
        MARRIAGE_50,
        "...",
        "...",
        WINNER_AS,
        "AS ...",
    ]
    t = table(6, hands, "JK", stock="8D 7H JS 9H QD 10C 6S 6D 6H 4H 7S")
    t.play(
        """
        p1 draw closed
        p1 discard 8D
        p2 draw closed
        p2 discard 7H
        p3 drop
        p4 drop
        p5 draw closed
        p5 discard JS
        p6 draw closed
        p6 discard 9H
        p1 draw closed
        p1 discard QD
        p2 draw closed
        p2 discard 10C
        p5 draw closed
        p5 discard 6S
        p6 drop
        p1 draw closed
        p1 discard 6D
        p2 draw closed
        p2 discard 6H
        p5 draw closed
        """
    )
    assert t.view(5)["value_cards"] == ["AS", "2S", "KS"]
    t.do(f"p5 declare 4H | {WINNER_GROUPS}")
    assert t.kinds()[:2] == ["declare", "declaration"]
    t.do("p1 show 3H 3H | 7D 7D | QC QC | 4S 4S | 10D 10D | 6H 6H | KS KS | 2H 5S 6C JD QS 3C 10S")
    singles = " | ".join(MARRIAGE_50.split())
    t.do(f"p2 show {singles}")
    summary = t.game.view(None)["history"][-1]
    assert summary["scores"] == {"1": 2, "2": 50, "3": 30, "4": 30, "5": 0, "6": 70}
    assert summary["how"]["6"] == "middle drop" and summary["how"]["3"] == "first drop"
    assert set(summary["values"]) == {"1", "2", "5"}  # the seats still in the deal
    assert summary["values"]["2"]["marriages"] == 1 and summary["values"]["2"]["worth"] == 100
    assert summary["values"]["1"]["worth"] == 30 and summary["values"]["5"]["worth"] == 10
    assert nets(t) == {1: -52, 2: 110, 3: -30, 4: -30, 5: 72, 6: -70}
    result = t.game.result
    assert result is not None and result.winners == (5,)
    assert sorted((p.account, p.amount) for p in result.postings) == [
        ("seat:1", -52),
        ("seat:2", 110),
        ("seat:3", -30),
        ("seat:4", -30),
        ("seat:5", 72),
        ("seat:6", -70),
    ]
    # The record replays to the same result.
    again = replay(t.game.record())
    assert again.result == result


def test_chips_are_points_times_the_point_value_and_the_net_loss_is_capped() -> None:
    """Two players: the loser's 120 card points (capped) plus the winner's marriage (100) would
    cost 220; the net loss cap makes it 200, at 3 chips a point."""
    winner = "AS 2S KS 4D 5D 6D 7D 7C 8C 9C 10S JS QS 8S 8H 8D 9S 9H 9D 4C 4H"
    groups = "4D 5D 6D 7D | 7C 8C 9C | 10S JS QS KS | 8S 8H 8D | 9S 9H 9D | 4C 4H AS 2S"
    loser = "KC KD KH QC QD QH JC JD JH 10C 10D 10H 9C 9D 8C 8D 7C 7D 6C 6D 3H"
    t = table(2, [winner, loser], "JK", stock=STOCK, point_value=3)
    declare_after_a_round(t, groups)
    t.do("p2 show " + " | ".join(loser.split()))
    assert t.game.view(None)["history"][-1]["scores"] == {"1": 0, "2": 120}
    assert nets(t) == {1: 200, 2: -200}
    result = t.game.result
    assert result is not None
    assert sorted((p.account, p.amount) for p in result.postings) == [
        ("seat:1", 600),
        ("seat:2", -600),
    ]
    settlement = t.game.view(None)["history"][-1]["settlement"]
    assert settlement["2"]["cap_relief"] == 20 and settlement["2"]["net"] == -200


@pytest.mark.parametrize(
    ("name", "hand", "groups"),
    [
        (
            "three tunnelas, the rest loose",
            "7H 7H 7H QC QC QC 3D 3D 3D 2H 4H 6C 8D 9S JC KD 4S 6D 8H 10C JD",
            "7H 7H 7H | QC QC QC | 3D 3D 3D | 2H 4H 6C 8D 9S JC KD 4S 6D 8H 10C JD",
        ),
        (
            "eight dublees, the rest loose",
            "7H 7H QC QC 3D 3D 2H 2H 4S 4S 6C 6C 8D 8D JC JC 9S KD 10C JD 4H",
            "7H 7H | QC QC | 3D 3D | 2H 2H | 4S 4S | 6C 6C | 8D 8D | JC JC | 9S KD 10C JD 4H",
        ),
        (
            "eight wild cards in one group",
            "5H 5H 5S 5S 5D 5C JK JK 3D 9S KD 10C JD 4H 8C 7D 2H 9C QH 6S 3C",
            "5H 5H 5S 5S 5D 5C JK JK | 3D 9S KD 10C JD 4H 8C 7D 2H 9C QH 6S 3C",
        ),
    ],
)
def test_the_winning_shapes(name: str, hand: str, groups: str) -> None:
    """Besides three pure sequences with the rest melded: three tunnelas, eight dublees, or
    eight wild cards (here the 5s: the cut is a 5) in one group, whatever the rest."""
    t = table(2, [hand, "..."], "5D", stock="KS")
    t.do("p1 draw closed")
    t.do(f"p1 declare KS | {groups}")
    declaration = next(e for e in t.last if e.kind == "declaration")
    assert declaration.data["valid"], name
    assert t.game.view(None)["phase"] == "show"


def test_a_wrong_declaration_costs_120_and_still_exchanges_value_cards() -> None:
    """Seat 1 declares without a valid shape: 120 points, out of the deal, and play goes on.
    It held a cut joker (A♠, the printed joker being cut), so it still collects 10 from each seat
    still in the deal, and pays the winner's value cards."""
    wrong = "AS 3H 7D 7D QC QC 4S 4S 10D 10D 6H 6H 9S 2H 5S 6C JD QS 3C 10S 8H"
    t = table(3, [wrong, "...", WINNER_AS], "JK", stock="7H 8D 6D")
    t.do("p1 draw closed")
    t.do("p1 declare 7H | " + " | ".join(wrong.split()))
    declaration = next(e for e in t.last if e.kind == "declaration")
    assert not declaration.data["valid"] and declaration.data["score"] == 120
    assert t.seat(1)["status"] == "wrong"
    t.play(
        """
        p2 draw closed
        p2 discard 8D
        p3 draw closed
        """
    )
    t.do(f"p3 declare 6D | {WINNER_GROUPS}")
    hand2 = t.view(2)["hand"]
    t.do("p2 show " + " | ".join(hand2))
    summary = t.game.view(None)["history"][-1]
    assert summary["values"]["1"]["cut"] == 1 and summary["values"]["1"]["worth"] == 10
    assert summary["values"]["3"]["worth"] == 10
    loss2 = summary["scores"]["2"]
    # Seat 1: -120, +10 from seat 2 and from seat 3, -10 to seat 3.
    assert nets(t) == {1: -120 + 20 - 10, 2: -loss2 - 10 - 10, 3: 120 + loss2 + 20 - 10}


def test_loser_points_by_the_three_regimes() -> None:
    """No pure sequence: every card counts; one or two pure sequences: they are exempt; three or
    more: every meld is exempt. Wild cards count 0; a loser pays at most 120."""
    junk = "3H 4C 6S 8D 9H JC QD KC 10S 7H 3C 4H"  # 84 points
    pure1, pure2, pure3 = "4D 5D 6D", "7C 8C 9C", "10H JH QH"
    cases = [
        # no pure sequence (the runs split up): all 21 count, 153, capped at 120
        (f"{junk} | 4D 5D | 6D 7C | 8C 9C | 10H JH | QH", 120),
        # one pure sequence exempt: 84 + 54 = 138, capped
        (f"{junk} | {pure1} | 7C 8C | 9C 10H | JH QH", 120),
        # two pure sequences exempt: 84 + 30
        (f"{junk} | {pure1} | {pure2} | 10H | JH | QH", 114),
        # three pure sequences: every meld exempt; the junk counts
        (f"{junk} | {pure1} | {pure2} | {pure3}", 84),
    ]
    hand = f"{junk} {pure1} {pure2} {pure3}"
    for groups, points in cases:
        t = table(2, [WINNER_AS, hand], "JK", stock=STOCK)
        declare_after_a_round(t, WINNER_GROUPS)
        t.do(f"p2 show {groups}")
        assert t.game.view(None)["history"][-1]["scores"]["2"] == points, groups


@pytest.mark.parametrize(
    ("name", "hand", "groups"),
    [
        (
            "three pure sequences, the rest melded",
            "4D 5D 6D 7C 8C 9C 10H JH QH 3S 3H 3C 6S 7S 8S JC JD JS QC QD QS",
            "4D 5D 6D | 7C 8C 9C | 10H JH QH | 3S 3H 3C | 6S 7S 8S | JC JD JS | QC QD QS",
        ),
        (
            "six dublees",
            "7H 7H QC QC 3D 3D 4S 4S 6C 6C 8D 8D 9S KD 10C JD 4H 3C 10S JC 9H",
            "7H 7H | QC QC | 3D 3D | 4S 4S | 6C 6C | 8D 8D | 9S KD 10C JD 4H 3C 10S JC 9H",
        ),
        (
            "seven wild cards in one group",
            "AH AH AD AD AC JK JK 3D 9S KD 10C JD 4H 8C 7D 3H 9C QH 6S 3C 10S",
            "AH AH AD AD AC JK JK | 3D 9S KD 10C JD 4H 8C 7D 3H 9C QH 6S 3C 10S",
        ),
    ],
)
def test_the_two_point_shapes(name: str, hand: str, groups: str) -> None:
    """A loser who shows one of these loses 2 points, whatever their cards."""
    t = table(2, [WINNER_AS, hand], "JK", stock=STOCK)
    declare_after_a_round(t, WINNER_GROUPS)
    t.do(f"p2 show {groups}")
    assert t.game.view(None)["history"][-1]["scores"]["2"] == 2, name


def test_a_loser_who_never_had_a_turn_pays_half() -> None:
    """The deal show: half the card points, at least 2, at most 60."""
    winner = WINNER_AS.replace("AS", "6C")  # every A♠ for the last hand
    groups = WINNER_GROUPS.replace("AS", "6C")
    cases = [
        ("KC KD KH QC QD QH JC JD JH 10C 10D 10H 9C 9D 8C 8D 7C 7D 6C 6D 3H", 60),  # 120
        ("2H 2H 2D 2D 2D 2C 2C 2C 3S 3S 3S 3D 3D 3D 4H 4H 4D 4C AH AD AC", 25),  # 50
        ("AH AH AH AD AD AD AC AC AC AS AS AS JK JK 2S 2S 2S KS KS KS 2H", 2),  # 2
    ]
    for hand, points in cases:
        t = table(2, [winner, hand], "JK", stock="KD")
        t.do("p1 draw closed")
        t.do(f"p1 declare KD | {groups}")
        t.do("p2 show " + " | ".join(hand.split()))
        summary = t.game.view(None)["history"][-1]
        assert summary["deal_show"] == [2]
        assert summary["scores"]["2"] == points, hand


def test_drops_and_missed_turns() -> None:
    t = table(3, ["...", "...", "..."], "5D", stock="KS 8H 3D")
    t.do("p1 drop")
    assert t.last[0].data == {"seat": 1, "score": 30, "how": "first drop"}
    t.play(
        """
        p2 draw closed
        p2 discard KS
        p3 timeout +75000
        p2 draw closed
        p2 discard 8H
        p3 timeout +75000
        p2 draw closed
        p2 discard 3D
        p3 timeout +75000
        """
    )
    removed = [e for e in t.events if e.kind == "removed"]
    assert removed and removed[0].data == {"seat": 3, "score": 70}
    assert nets(t)[3] == -70 and nets(t)[1] == -30 and nets(t)[2] == 100


def test_a_middle_drop_costs_70() -> None:
    t = table(2, ["...", "..."], "5D", stock="KS 8H")
    t.play(
        """
        p1 draw closed
        p1 discard KS
        p2 draw closed
        p2 discard 8H
        p1 drop
        """
    )
    assert nets(t) == {1: -70, 2: 70}


@pytest.mark.parametrize(
    ("cut", "values"),
    [
        ("5D", ["5D", "6D", "4D"]),
        ("KH", ["KH", "AH", "QH"]),  # the ace follows the king
        ("AC", ["AC", "2C", "KC"]),  # and precedes the two
        ("JK", ["AS", "2S", "KS"]),  # a printed joker cut: A♠ is the cut joker
    ],
)
def test_the_value_cards_of_a_cut(cut: str, values: list[str]) -> None:
    t = table(2, ["...", "..."], cut)
    assert t.view(None)["value_cards"] == values
    deal = next(e for e in t.last if e.kind == "deal")
    assert deal.data["cut"] == cut


def test_three_packs_and_twenty_one_cards_each() -> None:
    t = table(6, ["..."] * 6, "5D")
    for seat in range(1, 7):
        assert len(t.view(seat)["hand"]) == 21
    census = t.game.census()
    assert sum(len(cards) for cards in census.values()) == 159
    assert t.view(None)["closed"] == 159 - 6 * 21 - 1  # the open card out, the cut under


def test_a_declaration_not_shown_in_time_is_wrong_and_still_exchanges() -> None:
    """The declarer's timer runs out before they confirm their groups: a wrong declaration
    (120), nothing shown, and with two players the other wins; the declarer's value cards (the
    hand it held, its finish card aside) still count."""
    t = table(2, [MARRIAGE_50, "..."], "JK", stock="7H")
    t.play(
        """
        p1 draw closed
        p1 declare 7H
        """
    )
    deadline = t.game.awaited()[0].deadline
    assert deadline == 3000 + 45_000 + 45_000  # the declare time and the extra-time bank
    t.do(f"p1 timeout @{deadline - 1} ! too_early")
    t.do(f"p1 timeout @{deadline}")
    declaration = next(e for e in t.last if e.kind == "declaration")
    assert declaration.data == {
        "seat": 1,
        "valid": False,
        "reason": "declare timeout",
        "score": 120,
    }
    summary = t.game.view(None)["history"][-1]
    assert summary["winner"] == 2 and summary["how"]["1"] == "wrong declaration"
    assert summary["values"]["1"]["marriages"] == 1
    # Seat 1 pays 120 and collects its marriage's 100 from seat 2.
    assert nets(t) == {1: -20, 2: 20}


def test_a_show_not_confirmed_in_time_scores_the_last_arrangement() -> None:
    junk = "3H 4C 6S 8D 9H JC QD KC 10S 7H 3C 4H"
    pures = "4D 5D 6D | 7C 8C 9C | 10H JH QH"
    hand = f"{junk} {pures.replace('|', '')}"
    t = table(2, [WINNER_AS, hand], "JK", stock=STOCK)
    t.do(f"p2 group {junk} | {pures}")  # arranging is allowed at any time, even off turn
    declare_after_a_round(t, WINNER_GROUPS)
    deadline = t.game.awaited()[0].deadline
    # Declared at 8000 (the group took a step): the show time and the extra-time bank.
    assert t.game.awaited()[0].seat == 2 and deadline == 8000 + 45_000 + 45_000
    t.do(f"p2 timeout @{deadline}")
    summary = t.game.view(None)["history"][-1]
    assert summary["how"]["2"] == "arrangement"
    assert summary["scores"]["2"] == 84  # three pure sequences: only the loose cards count
