"""The bot of Rummy 51 (:class:`Rummy51Bot`). It sees what its seat sees and nothing more: ``act``
gets the seat's view and answers with the next action (docs/records.md), or None.

Every decision starts from the exact search for the most valuable groups a hand can lay down
(:func:`rummyhall.games.rummy51.opening.best_opening`), with a few rules of thumb on top:

* **Draw.** In the opening round the top of the discard pile is taken when it adds at least
  :data:`TAKE_GAIN` to what the hand could lay down (nothing is owed for it then). Later, a bot
  that has not opened takes it only when the hand with it opens at once (taking it obliges an
  opening); one that has opened takes it when it goes onto the table this turn, on a group of
  its own making or laid off. Otherwise it draws from the stock.
* **Open** as soon as the best opening is worth 51 (no waiting for a "Rummy": an opening lets
  the bot shed cards every turn after).
* **After opening**, in this order, one action per call: swap a joker off the table for a card
  it stands for (a joker is worth more in hand than any card); lay down the best new groups;
  lay off every card that fits a group on the table; jokers go onto runs when the hand has
  nothing left to hold them for. A card always stays to throw.
* **Discard** the ordinary card that costs most to keep: its points less what it is worth for
  later (neighbours of its suit, its rank in other suits). A joker is buried only to go out
  (its last two cards), or thrown with the last jokers.

The bot remembers only the actions it already sent in the current state: a refused action is
never sent twice, so it cannot loop.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, cast

from rummyhall.cards import Card, format_cards, parse
from rummyhall.games.rummy51.groups import Group
from rummyhall.games.rummy51.opening import best_opening
from rummyhall.games.rummy51.rules import hand_points
from rummyhall.games.rummy51.views import Rummy51View

TAKE_GAIN: Final = 10
"""What the top of the discard pile must add to the hand's best groups to be taken in the
opening round."""
ADJACENT: Final = 6
"""Worth of a card for each card of its suit one place away (a run in the making)."""
GAPPED: Final = 3
"""... two places away."""
SAME_RANK: Final = 4
"""... for each other suit of its rank (a set in the making)."""

_CARDS: dict[str, Card] = {}


def _card(text: str) -> Card:
    card = _CARDS.get(text)
    if card is None:
        card = _CARDS[text] = parse(text)
    return card


def _cards(texts: Sequence[str]) -> list[Card]:
    return [_card(text) for text in texts]


def _groups_text(groups: Sequence[Group]) -> str:
    return " | ".join(format_cards(group.cards) for group in groups)


def _positions(card: Card) -> tuple[int, ...]:
    return (1, 14) if card.rank == 1 else (card.rank,)


def _worth(card: Card, others: Sequence[Card]) -> int:
    """What ``card`` is worth for later, given the rest of the hand."""
    worth = 0
    suits: set[int] = set()
    for other in others:
        if other.is_joker or other is card:
            continue
        if other.suit == card.suit:
            gap = min(abs(p - q) for p in _positions(card) for q in _positions(other))
            worth += ADJACENT if gap == 1 else GAPPED if gap == 2 else 0
        elif other.rank == card.rank and other.suit is not None:
            suits.add(int(other.suit))
    return worth + SAME_RANK * len(suits)


def _table(view: Rummy51View) -> list[tuple[int, Group]]:
    """The groups on the table as :class:`Group` s, with their ids (what each joker stands for
    is in the view)."""
    return [
        (
            entry["id"],
            Group(
                "set" if entry["kind"] == "set" else "run",
                tuple(_cards(entry["cards"])),
                tuple(None if stand is None else _card(stand) for stand in entry["stands"]),
            ),
        )
        for entry in view["table"]
    ]


class Rummy51Bot:
    """A Rummy 51 player for one seat (see the module docstring). Deterministic: the same views in
    the same order give the same actions."""

    game: Final = "rummy51"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._state: tuple[Any, ...] | None = None
        self._tried: set[str] = set()

    def act(self, view: Mapping[str, Any]) -> str | None:
        if view.get("game") != self.game:
            return None
        return self._act(cast(Rummy51View, view))

    def _act(self, view: Rummy51View) -> str | None:
        seat = view["viewer"]
        if seat is None or view["phase"] != "play" or view["turn"] != seat or "hand" not in view:
            return None
        state = (
            tuple(view["hand"]),
            tuple(view["open"]),
            view["drawn"],
            tuple(tuple(entry["cards"]) for entry in view["table"]),
            view["must_open"],
        )
        if state != self._state:
            self._state, self._tried = state, set()
        for action in self._choices(view, seat):
            if action not in self._tried:
                self._tried.add(action)
                return action
        return None

    def _choices(self, view: Rummy51View, seat: int) -> Iterator[str]:
        hand = _cards(view["hand"])
        opened = next(s["opened"] for s in view["seats"] if s["seat"] == seat)
        if not view["drawn"]:
            if view["may_take_open"] and view["open"] and self._wants_top(view, hand, opened):
                yield "draw open"
            yield "draw closed"
            return
        if not view["first_round"]:
            if not opened:
                opening = best_opening(hand, keep=1, opening=True)
                if opening.opens:
                    yield "open " + _groups_text(opening.groups)
            else:
                yield from self._after_opening(view, hand)
        if view["must_open"]:
            yield "return"
        yield from self._discards(hand)

    def _wants_top(self, view: Rummy51View, hand: list[Card], opened: bool) -> bool:
        top = _card(view["open"][-1])
        if top.is_joker:
            return opened or view["first_round"]
        with_top = [*hand, top]
        if view["first_round"]:
            gain = best_opening(with_top, opening=True).value - best_opening(hand).value
            return gain >= TAKE_GAIN
        if not opened:
            return best_opening(with_top, keep=1, opening=True).opens
        melds = best_opening(with_top, keep=1, opening=False)
        if any(top in group.cards for group in melds.groups):
            return True
        return any(group.add(top) is not None for _, group in _table(view))

    def _after_opening(self, view: Rummy51View, hand: list[Card]) -> Iterator[str]:
        table = _table(view)
        for number, group in table:
            for card in hand:
                if not card.is_joker and group.swap(card) is not None:
                    yield f"swap {number} {card}"
        if len(hand) > 1:
            melds = best_opening(hand, keep=1, opening=False)
            if melds.groups:
                yield "meld " + _groups_text(melds.groups)
        if len(hand) > 1:
            natural = [card for card in hand if not card.is_joker]
            for card in sorted(natural, key=lambda c: -hand_points(c)):
                for number, group in table:
                    if group.add(card) is not None:
                        yield f"add {number} {card}"
            if len(hand) <= 3:
                # A joker nobody can use in hand is 20 points at the end: onto a run with it.
                for card in hand:
                    if card.is_joker:
                        for number, group in table:
                            if group.kind == "run" and group.add(card) is not None:
                                yield f"add {number} JK"

    def _discards(self, hand: list[Card]) -> Iterator[str]:
        natural = [card for card in hand if not card.is_joker]
        jokers = len(hand) - len(natural)
        if not natural:
            yield "discard " + " ".join("JK" for _ in hand)
            return
        if len(hand) == 2 and jokers == 1:
            yield f"discard {natural[0]} JK"

        def cost(card: Card) -> tuple[int, int, int]:
            return (_worth(card, hand) - hand_points(card), -hand_points(card), card.code)

        seen: set[str] = set()
        for card in sorted(natural, key=cost):
            if str(card) not in seen:
                seen.add(str(card))
                yield f"discard {card}"
        yield f"discard {natural[0]} JK"
