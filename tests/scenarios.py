"""Scenario tests in notation: stacked decks, and a table that plays lines like ``p2 discard 7H``.

A line is ``p<seat> <action>``, optionally followed by a time and an expected error::

    p1 draw closed               at the previous time + ``step`` (1000 ms unless told)
    p1 discard 7H @45000         at 45000 ms exactly
    p2 timeout +60000            60000 ms after the previous accepted action
    p3 draw open ! illegal_action

``p0 deal`` (the house) takes the next deck given to the table. A line that ends in ``! code``
must be refused with that error code, and must leave every seat's view, the spectators' view,
the awaited seats and the log exactly as they were. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from rummyhall.cards import Card, parse, shoe
from rummyhall.games.protocol import HOUSE, Deal, Event, Game, GameError

_LINE = re.compile(r"^p(\d+)\s+(.*?)(?:\s+([@+])(\d+))?(?:\s+!\s*(\w+))?\s*$")


def stacked(
    hands: Sequence[str],
    cut: str,
    open_card: str,
    stock: str = "",
    *,
    decks: int = 2,
    jokers: int = 1,
    toss: str = "",
    size: int = 13,
) -> tuple[Card, ...]:
    """A deck (top card first) of the whole shoe that deals ``hands`` (``size`` cards each, first
    mover's first; the deal goes one card at a time round them), then ``cut`` and ``open_card``,
    and whose closed deck starts with ``stock`` (top first). ``toss`` cards come before all of it.
    The rest of the shoe follows in canonical order; the cut card ends up under it."""
    left = shoe(decks, jokers)

    def take(text: str) -> Card:
        wanted = parse(text)
        for index, card in enumerate(left):
            if card == wanted:
                return left.pop(index)
        raise ValueError(f"the shoe has no copy of {text} left")

    dealt = [[take(token) for token in hand.split()] for hand in hands]
    for hand in dealt:
        if len(hand) != size:
            raise ValueError(f"a hand needs {size} cards, got {len(hand)}")
    tossed = [take(token) for token in toss.split()]
    rounds = [hand[i] for i in range(size) for hand in dealt]
    head = [take(cut), take(open_card), *(take(token) for token in stock.split())]
    return (*tossed, *rounds, *head, *left)


def deck51(hands: Sequence[str], stock: str = "") -> tuple[Card, ...]:
    """A Rummy 51 deck (two packs and four jokers, top card first) that deals ``hands`` (the
    first mover's 15 cards first, then 14 for each other seat in turn order; one card at a time
    round them) and whose stock starts with ``stock`` (top first); the rest of the shoe follows
    in canonical order."""
    left = shoe(2, 2)

    def take(text: str) -> Card:
        wanted = parse(text)
        for index, card in enumerate(left):
            if card == wanted:
                return left.pop(index)
        raise ValueError(f"the shoe has no copy of {text} left")

    dealt = [[take(token) for token in hand.split()] for hand in hands]
    sizes = [len(hand) for hand in dealt]
    if sizes != [15] + [14] * (len(dealt) - 1):
        raise ValueError(f"deal 15 cards to the first mover and 14 to the others, not {sizes}")
    rounds = [hand[i] for i in range(15) for hand in dealt if i < len(hand)]
    return (*rounds, *(take(token) for token in stock.split()), *left)


def patti_deck(hands: Sequence[str], open_card: str, closed_card: str) -> tuple[Card, ...]:
    """A Rummy Patti deck (one pack, top card first) that deals ``hands`` (3 cards each, first
    player's first; one card at a time round them), then ``open_card`` and ``closed_card``; the
    rest of the pack follows in canonical order."""
    left = shoe(1, 0)

    def take(text: str) -> Card:
        wanted = parse(text)
        for index, card in enumerate(left):
            if card == wanted:
                return left.pop(index)
        raise ValueError(f"the pack has no {text} left")

    dealt = [[take(token) for token in hand.split()] for hand in hands]
    if any(len(hand) != 3 for hand in dealt):
        raise ValueError("a Rummy Patti hand has 3 cards")
    rounds = [hand[i] for i in range(3) for hand in dealt]
    return (*rounds, take(open_card), take(closed_card), *left)


def views(game: Game) -> dict[int | None, dict[str, Any]]:
    """Every seat's view and the spectators'."""
    return {seat: game.view(seat) for seat in (None, *range(1, game.seats + 1))}


class Table:
    """A game driven by lines of notation, with a clock and a queue of decks for the house."""

    def __init__(
        self,
        game: Game,
        decks: Iterable[Deal | Sequence[Card]] = (),
        *,
        at: int = 0,
        step: int = 1000,
    ) -> None:
        self.game = game
        self.decks: list[Deal | Sequence[Card]] = list(decks)
        """What ``p0 deal`` deals next: a Deal (fair deals are recorded as seeds) or cards."""
        self.at = at
        self.step = step
        self.events: list[Event] = []
        """Events of every accepted action, in order."""
        self.last: list[Event] = []
        """Events of the last accepted action."""

    def do(self, line: str) -> list[Event]:
        match = _LINE.match(line.strip())
        if match is None:
            raise ValueError(f"not a scenario line: {line!r}")
        seat_text, action, mark, number, code = match.groups()
        seat = int(seat_text)
        if mark == "@":
            at = int(number)
        elif mark == "+":
            at = self.at + int(number)
        else:
            at = self.at + self.step
        deal = None
        if seat == HOUSE and action == "deal":
            # A deal that must be refused leaves the deck in the queue.
            deck = (self.decks.pop(0) if code is None else self.decks[0]) if self.decks else ()
            deal = deck if isinstance(deck, Deal) else Deal(tuple(deck))
        if code is not None:
            self.refused(seat, action, at, code, deal)
            return []
        events = self.game.apply(seat, action, at, deal=deal)
        self.at = at
        self.events += events
        self.last = events
        return events

    def refused(self, seat: int, action: str, at: int, code: str, deal: Deal | None) -> GameError:
        """Apply an action that must fail with ``code`` and change nothing."""
        before = (views(self.game), self.game.awaited(), len(self.game.log))
        try:
            self.game.apply(seat, action, at, deal=deal)
        except GameError as exc:
            assert exc.code == code, f"p{seat} {action}: {exc.code} ({exc.message}), not {code}"
            after = (views(self.game), self.game.awaited(), len(self.game.log))
            assert after == before, f"p{seat} {action} was refused but changed the game"
            return exc
        raise AssertionError(f"p{seat} {action} was accepted; expected {code}")

    def play(self, script: str) -> None:
        for line in script.splitlines():
            text = line.strip()
            if text and not text.startswith("#"):
                self.do(text)

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.game.view(seat)

    def seat(self, seat: int, viewer: int | None = None) -> dict[str, Any]:
        """Seat ``seat``'s entry in ``viewer``'s view."""
        entries: list[dict[str, Any]] = self.game.view(viewer)["seats"]
        return next(entry for entry in entries if entry["seat"] == seat)

    def kinds(self) -> list[str]:
        return [event.kind for event in self.last]
