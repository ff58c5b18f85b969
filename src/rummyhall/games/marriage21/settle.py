"""What each seat wins or loses when a deal of 21-card Marriage Rummy ends: pure arithmetic on
numbers the engine has already worked out.

The engine says who declared, what every other seat pays the winner (card points, a 2-point
shape, a wrong declaration or a drop: :func:`settle` does not care which) and which value cards
each seat still in the deal holds. Then:

* every seat still in the deal (not dropped, not removed) collects the worth of its value cards
  (:meth:`ValueScores.worth`) from every other seat still in the deal;
* a seat whose net is below ``-net_cap`` pays less, just enough to end at ``-net_cap``: each of
  its payments shrinks in proportion (see :func:`settle` for the rounding), which lowers what the
  others receive and may push one of them below the cap in turn; this repeats until no seat is
  below it.

The result always sums to zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Mapping

NET_CAP: Final = 200
"""The most a seat can lose in one deal, everything included."""


@dataclass(frozen=True, slots=True)
class Holding:
    """How many copies of each value card one seat holds at the end of a deal."""

    cut: int = 0
    upper: int = 0
    lower: int = 0

    def __post_init__(self) -> None:
        for kind in ("cut", "upper", "lower"):
            if getattr(self, kind) < 0:
                raise ValueError(f"a holding cannot have {getattr(self, kind)} {kind} jokers")

    @property
    def marriages(self) -> int:
        """Complete sets of one cut, one upper and one lower joker."""
        return min(self.cut, self.upper, self.lower)


@dataclass(frozen=True, slots=True)
class ValueScores:
    """What value cards are worth. ``single[n]``: n copies of one kind left over after the
    marriages; ``marriage[n]``: n marriages. Both tables run from 0 to the most copies of a card
    the shoe holds (one per pack), so their length also bounds a :class:`Holding`."""

    single: tuple[int, ...] = (0, 10, 30, 50)
    marriage: tuple[int, ...] = (0, 100, 300, 500)

    def __post_init__(self) -> None:
        for name, table in (("single", self.single), ("marriage", self.marriage)):
            if not table or table[0] != 0 or min(table) < 0:
                raise ValueError(f"{name} scores must start at 0 and never be negative: {table}")
        if len(self.single) != len(self.marriage):
            raise ValueError(
                f"single and marriage scores must cover the same number of copies: "
                f"{self.single}, {self.marriage}"
            )

    @property
    def max_copies(self) -> int:
        """The most copies of one value card a seat can hold."""
        return len(self.single) - 1

    def worth(self, holding: Holding) -> int:
        """What ``holding`` collects from each other seat still in the deal: its marriages, plus
        each kind's copies left over (a marriage's cards do not also count as single cards)."""
        counts = (holding.cut, holding.upper, holding.lower)
        if max(counts) > self.max_copies:
            raise ValueError(f"{holding} holds more than {self.max_copies} copies of a card")
        married = holding.marriages
        return self.marriage[married] + sum(self.single[count - married] for count in counts)


DEFAULT_SCORES: Final = ValueScores()


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's line on the result screen; the parts add up to :attr:`net`."""

    cards: int
    """The winner: what all the others pay it for their hands; any other seat: minus its loss."""
    value_received: int
    """Value points it collects from the other seats still in the deal (before the cap)."""
    value_given: int
    """Value points it pays to the other seats still in the deal (before the cap)."""
    cap_relief: int = 0
    """How much the cap took off its own payments."""
    cap_shortfall: int = 0
    """How much the cap took off what other seats pay it."""

    @property
    def net(self) -> int:
        return (
            self.cards
            + self.value_received
            - self.value_given
            + self.cap_relief
            - self.cap_shortfall
        )


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of one deal."""

    winner: int
    net: dict[int, int]
    """Seat -> points won (positive) or lost (negative); sums to zero."""
    payments: dict[tuple[int, int], int]
    """(payer, payee) -> points, after the cap; only the positive ones. A loser's payment to the
    winner includes its loss and the winner's value points."""
    worth: dict[int, int]
    """Seat still in the deal -> what its value cards collect from each other such seat."""
    capped: tuple[int, ...]
    """Seats whose payments the net loss cap cut, in seat order."""
    seats: dict[int, SeatResult]
    """Seat -> how its net comes about."""


def settle(
    winner: int,
    losses: Mapping[int, int],
    holdings: Mapping[int, Holding],
    *,
    scores: ValueScores = DEFAULT_SCORES,
    net_cap: int = NET_CAP,
) -> Settlement:
    """Settle a deal that ``winner`` won.

    ``losses``: every other seat -> what it pays the winner. ``holdings``: exactly the seats
    still in the deal (the winner, losers who showed, wrong declarers) -> their value cards; a
    dropped or removed seat is absent and neither pays nor collects value points.

    The cap: a seat whose net is below ``-net_cap`` pays ``R + net_cap`` in all instead of
    ``P`` (R: what it receives, P: what it pays). Each payee gets ``floor(owed * (R + net_cap)
    / P)`` of what it was owed; the points the rounding leaves go to the winner, then to the
    payees by what they were owed (most first, lowest seat on a tie), none ever getting more
    than it was owed. Then the seats are looked at again, lowest seat first, until no net is
    below ``-net_cap``.
    """
    _check(winner, losses, holdings, net_cap)
    seats = sorted({winner, *losses})
    worth = {seat: scores.worth(holdings[seat]) for seat in sorted(holdings)}

    owed: dict[tuple[int, int], int] = {}
    for payer, loss in losses.items():
        owed[payer, winner] = loss
    for payer in worth:
        for payee, value in worth.items():
            if payee != payer:
                owed[payer, payee] = owed.get((payer, payee), 0) + value
    owed = {pair: points for pair, points in sorted(owed.items()) if points > 0}

    payments = dict(owed)
    capped: set[int] = set()
    while True:  # ends: each round takes at least one point off the payments' total
        nets = _nets(seats, payments)
        below = [seat for seat in seats if nets[seat] < -net_cap]
        if not below:
            break
        _shrink(payments, below[0], -net_cap - nets[below[0]], winner)
        capped.add(below[0])
    payments = {pair: points for pair, points in payments.items() if points > 0}

    others = len(worth) - 1
    results = {
        seat: SeatResult(
            cards=sum(losses.values()) if seat == winner else -losses[seat],
            value_received=worth[seat] * others if seat in worth else 0,
            value_given=sum(worth.values()) - worth[seat] if seat in worth else 0,
            cap_relief=sum(
                points - payments.get(pair, 0) for pair, points in owed.items() if pair[0] == seat
            ),
            cap_shortfall=sum(
                points - payments.get(pair, 0) for pair, points in owed.items() if pair[1] == seat
            ),
        )
        for seat in seats
    }
    return Settlement(
        winner=winner,
        net=nets,
        payments=payments,
        worth=worth,
        capped=tuple(sorted(capped)),
        seats=results,
    )


def _check(
    winner: int, losses: Mapping[int, int], holdings: Mapping[int, Holding], net_cap: int
) -> None:
    if not losses:
        raise ValueError("a deal needs at least one seat besides the winner")
    if winner in losses:
        raise ValueError(f"the winner (seat {winner}) cannot also have a loss")
    for seat, loss in losses.items():
        if loss < 0:
            raise ValueError(f"seat {seat} cannot lose {loss} points")
    if winner not in holdings:
        raise ValueError(f"the winner (seat {winner}) needs a holding: it is still in the deal")
    if strangers := sorted(set(holdings) - {winner, *losses}):
        raise ValueError(f"holdings for seats not in the deal: {strangers}")
    if net_cap < 0:
        raise ValueError(f"the net loss cap cannot be negative: {net_cap}")


def _nets(seats: list[int], payments: Mapping[tuple[int, int], int]) -> dict[int, int]:
    net = dict.fromkeys(seats, 0)
    for (payer, payee), points in payments.items():
        net[payer] -= points
        net[payee] += points
    return net


def _shrink(payments: dict[tuple[int, int], int], payer: int, cut: int, winner: int) -> None:
    """Take ``cut`` points off what ``payer`` pays (0 < cut <= its total), pro rata to what each
    payee is owed; the rounding's leftover as :func:`settle` says."""
    owed = {payee: points for (frm, payee), points in payments.items() if frm == payer and points}
    before = sum(owed.values())
    after = before - cut
    shares = {payee: points * after // before for payee, points in owed.items()}
    left = after - sum(shares.values())
    for payee in sorted(owed, key=lambda seat: (seat != winner, -owed[seat], seat)):
        extra = min(left, owed[payee] - shares[payee])
        shares[payee] += extra
        left -= extra
    for payee, points in shares.items():
        payments[payer, payee] = points
