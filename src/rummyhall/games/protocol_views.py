"""The JSON shapes of the protocol (:mod:`rummyhall.games.protocol`) that every game's views and
events share: a view's ``awaited`` entries, a result, a posting, a group laid open on the table.

They live apart from the protocol because the protocol is compiled (rummyhall.native), and a
``TypedDict`` that mypyc compiles keeps no types a reader can resolve (``int | None`` becomes
``type``): the conformance suite reads them with ``typing.get_type_hints``. This module is never
compiled.
"""

from __future__ import annotations

from typing import Any, TypedDict


class AwaitedView(TypedDict):
    """An entry of a view's ``awaited``: an :class:`Awaited` as JSON."""

    seat: int
    kind: str
    deadline: int | None


class PostingView(TypedDict):
    """A :class:`Posting` as JSON."""

    account: str
    amount: int


class ResultView(TypedDict):
    """A :class:`Result` as JSON (:meth:`Result.to_json`): a view's ``result``, the ``game_over``
    event's data. Keys of ``points`` are seat numbers as text; ``detail`` is the game's own."""

    points: dict[str, int]
    winners: list[int]
    postings: list[PostingView]
    detail: dict[str, Any]


class TableGroupView(TypedDict):
    """A group of cards laid open on the table, which every seat sees and, in the games that allow
    it, every seat may change (Rummy 51's sets and runs: a card laid off, a joker swapped). Any
    game with open melds shows them as a view's ``table``, a list of these, and names one in its
    actions by ``id`` (``add 3 7H``, ``swap 3 7H``: docs/records.md).

    ``id`` is the group's number at the table, from 1 in the order groups were laid down; it
    never changes. ``owner`` is the seat that laid it down, ``kind`` the game's name for it.
    ``cards`` are in table order (a run low to high). ``stands`` says, card by card, what a joker
    stands for (None for an ordinary card): names of cards, not cards, so the leak check of
    :mod:`rummyhall.games.invariants` skips them (:attr:`ViewShape.names`)."""

    id: int
    owner: int
    kind: str
    cards: list[str]
    stands: list[str | None]
