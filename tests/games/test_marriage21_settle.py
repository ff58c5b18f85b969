"""Settling a deal of 21-card Marriage Rummy (rummyhall.games.marriage21.settle): value cards
and marriages, the six-player table of the rule page (as corrected in DECISIONS.md), the net loss
cap and its cascades, and properties over random deals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummyhall.games.marriage21.settle import Holding, Settlement, ValueScores, settle

NO_CAP = 10**9


def _check_sums(result: Settlement) -> None:
    assert sum(result.net.values()) == 0
    assert {seat: line.net for seat, line in result.seats.items()} == result.net
    for seat, net in result.net.items():
        paid = sum(points for (payer, _), points in result.payments.items() if payer == seat)
        got = sum(points for (_, payee), points in result.payments.items() if payee == seat)
        assert net == got - paid


# --- value cards --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("holding", "worth"),
    [
        (Holding(), 0),
        (Holding(upper=1), 10),
        (Holding(upper=2), 30),
        (Holding(upper=3), 50),
        (Holding(upper=1, lower=1), 20),
        (Holding(upper=2, lower=1), 40),
        (Holding(cut=2, lower=2), 60),
        (Holding(1, 1, 1), 100),
        (Holding(2, 2, 2), 300),
        (Holding(3, 3, 3), 500),
        (Holding(cut=1, upper=2, lower=1), 110),  # a marriage and a spare upper joker
        (Holding(cut=3, upper=1, lower=2), 100 + 30 + 10),  # spares: 2 cut, 1 lower
        (Holding(cut=3, upper=2, lower=3), 300 + 10 + 10),
    ],
)
def test_a_holding_is_worth_its_marriages_and_its_spare_value_cards(
    holding: Holding, worth: int
) -> None:
    assert ValueScores().worth(holding) == worth


def test_the_value_tables_are_configuration() -> None:
    scores = ValueScores(single=(0, 5, 15), marriage=(0, 50, 150))
    assert scores.max_copies == 2
    assert scores.worth(Holding(cut=2, upper=1, lower=1)) == 50 + 5
    with pytest.raises(ValueError, match="more than 2 copies"):
        scores.worth(Holding(cut=3))


def test_marriages_count_complete_sets() -> None:
    assert Holding(cut=3, upper=2, lower=1).marriages == 1
    assert Holding(cut=2, upper=2, lower=2).marriages == 2
    assert Holding(cut=3, upper=3).marriages == 0


# --- the rule page's examples -------------------------------------------------------------------


def six_players() -> Settlement:
    return settle(
        5,
        {1: 2, 2: 50, 3: 30, 4: 30, 6: 70},
        {1: Holding(lower=2), 2: Holding(1, 1, 1), 5: Holding(cut=1)},
    )


def test_the_six_player_table() -> None:
    result = six_players()
    assert result.net == {1: -52, 2: 110, 3: -30, 4: -30, 5: 72, 6: -70}
    assert result.worth == {1: 30, 2: 100, 5: 10}
    assert result.payments == {
        (1, 2): 100,
        (1, 5): 2 + 10,
        (2, 1): 30,
        (2, 5): 50 + 10,
        (3, 5): 30,
        (4, 5): 30,
        (5, 1): 30,
        (5, 2): 100,
        (6, 5): 70,
    }
    assert result.capped == ()
    two = result.seats[2]
    assert (two.cards, two.value_received, two.value_given) == (-50, 200, 40)
    five = result.seats[5]
    assert (five.cards, five.value_received, five.value_given) == (182, 20, 130)
    _check_sums(result)


def test_two_players_the_net_loss_is_capped() -> None:
    result = settle(1, {2: 110}, {1: Holding(1, 1, 1), 2: Holding()})
    assert result.net == {1: 200, 2: -200}
    assert result.payments == {(2, 1): 200}
    assert result.capped == (2,)
    assert result.seats[2].cap_relief == 10
    assert result.seats[1].cap_shortfall == 10
    _check_sums(result)


def test_the_cap_is_configuration() -> None:
    result = settle(1, {2: 110}, {1: Holding(1, 1, 1), 2: Holding()}, net_cap=150)
    assert result.net == {1: 150, 2: -150}
    assert settle(1, {2: 110}, {1: Holding(1, 1, 1), 2: Holding()}, net_cap=NO_CAP).net == {
        1: 210,
        2: -210,
    }


# --- the cap in more detail -----------------------------------------------------------------------


def test_capping_one_seat_can_push_another_below_the_cap() -> None:
    # Seat 2 owes 120 + 300 + 100 = 520 and is cut to 200: 162 to the winner (161 and the
    # rounding's point), 38 to seat 3. Seat 3 was at 200 - 380 = -180; with 38 instead of 100
    # from seat 2 it falls to -242 and is cut to -200 in turn.
    result = settle(1, {2: 120, 3: 80}, {1: Holding(2, 2, 2), 2: Holding(), 3: Holding(1, 1, 1)})
    assert result.net == {1: 400, 2: -200, 3: -200}
    assert result.payments == {(1, 3): 100, (2, 1): 162, (2, 3): 38, (3, 1): 338}
    assert result.capped == (2, 3)
    assert result.seats[3].cap_shortfall == 62
    assert result.seats[3].cap_relief == 42
    _check_sums(result)


def test_the_winner_can_be_the_capped_seat() -> None:
    # The winner owes 500 + 300 and receives 4: it pays 204, 127 and 76 pro rata, and the
    # leftover point goes to the seat owed the most.
    result = settle(1, {2: 2, 3: 2}, {1: Holding(), 2: Holding(3, 3, 3), 3: Holding(2, 2, 2)})
    assert result.net == {1: -200, 2: 326, 3: -126}
    assert result.payments[1, 2] == 128
    assert result.payments[1, 3] == 76
    assert result.capped == (1,)
    _check_sums(result)


def test_the_rounding_never_pays_a_seat_more_than_it_was_owed() -> None:
    # Seat 2 owes 21 + 100 + 80 = 201 and is cut by one point: the floors are 20, 99 and 79,
    # two points are left; the winner takes back its one, the next goes to seat 3 (owed most).
    result = settle(
        1,
        {2: 21, 3: 2, 4: 2},
        {1: Holding(), 2: Holding(), 3: Holding(1, 1, 1), 4: Holding(cut=3, upper=2)},
    )
    assert result.net == {1: -155, 2: -200, 3: 218, 4: 137}
    assert (result.payments[2, 1], result.payments[2, 3], result.payments[2, 4]) == (21, 100, 79)
    _check_sums(result)


def test_a_zero_cap_lets_nobody_lose() -> None:
    result = settle(1, {2: 50, 3: 30}, {1: Holding(cut=1), 2: Holding(1, 1, 1)}, net_cap=0)
    assert min(result.net.values()) == 0
    _check_sums(result)


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("winner", "losses", "holdings", "message"),
    [
        (1, {}, {1: Holding()}, "at least one seat"),
        (1, {1: 0, 2: 5}, {1: Holding()}, "winner"),
        (1, {2: -5}, {1: Holding()}, "cannot lose -5"),
        (1, {2: 5}, {2: Holding()}, "winner .* needs a holding"),
        (1, {2: 5}, {1: Holding(), 3: Holding()}, r"not in the deal: \[3\]"),
        (1, {2: 5}, {1: Holding(upper=4)}, "more than 3 copies"),
    ],
)
def test_bad_input_is_refused(
    winner: int, losses: dict[int, int], holdings: dict[int, Holding], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        settle(winner, losses, holdings)


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot have -1 cut"):
        Holding(cut=-1)
    with pytest.raises(ValueError, match="start at 0"):
        ValueScores(single=(5, 10, 30, 50))
    with pytest.raises(ValueError, match="never be negative"):
        ValueScores(marriage=(0, -100, 300, 500))
    with pytest.raises(ValueError, match="same number of copies"):
        ValueScores(marriage=(0, 100))
    with pytest.raises(ValueError, match="cap cannot be negative"):
        settle(1, {2: 5}, {1: Holding()}, net_cap=-1)


# --- properties -----------------------------------------------------------------------------------

holdings_st = st.builds(Holding, *(st.integers(0, 3) for _ in range(3)))


@st.composite
def deals(draw: st.DrawFn) -> tuple[int, dict[int, int], dict[int, Holding]]:
    """A winner, every other seat's loss, and the holdings of the seats still in the deal."""
    seats = range(1, draw(st.integers(2, 6)) + 1)
    winner = draw(st.sampled_from(seats))
    losses, holdings = {}, {winner: draw(holdings_st)}
    for seat in seats:
        if seat != winner:
            if draw(st.booleans()):  # dropped or removed
                losses[seat] = draw(st.sampled_from([30, 70]))
            else:
                losses[seat] = draw(st.integers(0, 120))
                holdings[seat] = draw(holdings_st)
    return winner, losses, holdings


def plain_nets(winner: int, losses: dict[int, int], holdings: dict[int, Holding]) -> dict[int, int]:
    """The rule page's formula, with no cap."""
    worth = {seat: ValueScores().worth(holding) for seat, holding in holdings.items()}
    nets = {}
    for seat in [winner, *losses]:
        cards = sum(losses.values()) if seat == winner else -losses[seat]
        value = 0
        if seat in worth:
            value = worth[seat] * (len(worth) - 1) - (sum(worth.values()) - worth[seat])
        nets[seat] = cards + value
    return nets


def owed_before_caps(
    winner: int, losses: dict[int, int], holdings: dict[int, Holding]
) -> dict[tuple[int, int], int]:
    uncapped = settle(winner, losses, holdings, net_cap=NO_CAP)
    return uncapped.payments


@settings(max_examples=200, deadline=None)
@given(deals(), st.sampled_from([0, 50, 120, 200]))
def test_any_deal_sums_to_zero_and_nobody_loses_more_than_the_cap(
    deal: tuple[int, dict[int, int], dict[int, Holding]], cap: int
) -> None:
    winner, losses, holdings = deal
    result = settle(winner, losses, holdings, net_cap=cap)
    _check_sums(result)
    assert min(result.net.values()) >= -cap
    owed = owed_before_caps(winner, losses, holdings)
    assert set(result.payments) <= set(owed)
    for pair, points in result.payments.items():
        assert 0 < points <= owed[pair]
    for seat in result.net:
        if seat not in result.capped:  # only the capped seats pay less
            assert all(
                result.payments.get(pair, 0) == owed[pair] for pair in owed if pair[0] == seat
            )
        else:
            assert result.net[seat] == -cap
        if seat not in holdings and losses[seat] <= cap:  # dropped: pays its loss, nothing else
            assert result.net[seat] == -losses[seat]
            assert seat not in result.worth


@settings(max_examples=150, deadline=None)
@given(deals())
def test_without_a_cap_the_nets_follow_the_rule_pages_formula(
    deal: tuple[int, dict[int, int], dict[int, Holding]],
) -> None:
    winner, losses, holdings = deal
    result = settle(winner, losses, holdings, net_cap=NO_CAP)
    assert result.net == plain_nets(winner, losses, holdings)
    assert result.capped == ()
    assert all(line.cap_relief == line.cap_shortfall == 0 for line in result.seats.values())


@settings(max_examples=150, deadline=None)
@given(deals())
def test_when_nobody_is_below_the_cap_it_changes_nothing(
    deal: tuple[int, dict[int, int], dict[int, Holding]],
) -> None:
    winner, losses, holdings = deal
    plain = plain_nets(winner, losses, holdings)
    result = settle(winner, losses, holdings)
    if min(plain.values()) >= -200:
        assert result.net == plain
    else:
        assert result.capped
