"""Invariants every game keeps after every action, for simulations and tests (DESIGN.md, "Tests and
measurements"). Each check returns a list of violations in words (empty: all is well).

* **Cards are conserved**: every physical card of the shoe is in exactly one location of
  :meth:`Game.census <rummyhall.games.protocol.Game.census>` (by ``card.physical``).
* **Chips are conserved**: the postings of every event, and of the result, sum to zero.
* **Views do not leak**: a view (and an event a seat may see) shows no card the seat may not see.
  Views name cards by value, and a shoe holds several copies of a card, so the check counts: for
  each card, the copies a view shows may not exceed the copies in the locations the seat may see
  (the census names say which: :func:`seen_by`). Some parts of a view repeat others or describe
  the past rather than where cards are now; :class:`ViewShape` says which, and the past must be
  the same for every viewer. Each engine says how (:attr:`Game.view_shape
  <rummyhall.games.protocol.Game.view_shape>`).

Census names (:meth:`Game.census <rummyhall.games.protocol.Game.census>`): ``closed`` and ``out``
nobody may see, ``hand:N`` and ``finish:N`` seat N only, anything else everyone. A name may end in
``@`` and a comma-separated list of seats that have seen those cards too, wherever they lie now:
after a Rummy Patti sideshow between seats 2 and 5, seat 2's cards are at ``hand:2@5`` and, once
one of them is swapped for the closed centre card, at ``closed@5``.

:class:`Invariants` runs them all after each action of one game.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from rummyhall.cards import Card
from rummyhall.games.protocol import DEFAULT_VIEWS, Event, Game, Result, ViewShape

HIDDEN_PLACES: Final = frozenset({"closed", "out"})
"""Census locations nobody may see."""
PRIVATE_PLACES: Final = frozenset({"hand", "finish"})
"""Census locations (``place:N``) only seat N may see. Every other location is public."""

_CARD: Final = re.compile(r"(?:10|[2-9AJQK])[SHDC]|JK")


def seen_by(location: str, seat: int | None) -> bool:
    """Whether ``seat`` (None: a spectator) may see the cards at census ``location``."""
    name, _, also = location.partition("@")
    if also and seat is not None and str(seat) in also.split(","):
        return True
    place, _, owner = name.partition(":")
    if place in HIDDEN_PLACES:
        return False
    if place in PRIVATE_PLACES:
        return seat is not None and owner == str(seat)
    return True


RUMMY_VIEWS: Final = DEFAULT_VIEWS
"""The rummy games' view shape, every engine's default (:attr:`Game.view_shape
<rummyhall.games.protocol.Game.view_shape>`)."""


def view_shape(game: Game) -> ViewShape:
    """How to read ``game``'s views: its engine's :attr:`~rummyhall.games.protocol.Game.view_shape`
    (the rummy games' shape unless the game has its own)."""
    return game.view_shape


def check_cards(census: Mapping[str, Sequence[Card]], shoe: Iterable[Card]) -> list[str]:
    """Every card of ``shoe`` in exactly one census location, and nothing else there. An empty
    census (no deal yet) passes."""
    if not census:
        return []
    where: dict[str, list[str]] = {}
    for location, cards in census.items():
        for card in cards:
            where.setdefault(card.physical, []).append(location)
    problems: list[str] = []
    expected = Counter(card.physical for card in shoe)
    for name, count in expected.items():
        if count > 1:
            problems.append(f"the shoe holds {name} {count} times (untracked copies?)")
        places = where.get(name, [])
        if not places:
            problems.append(f"card {name} is nowhere")
        elif len(places) > 1:
            problems.append(f"card {name} is in {len(places)} places: {', '.join(places)}")
    for name, places in where.items():
        if name not in expected:
            problems.append(f"card {name} at {', '.join(places)} is not in the shoe")
    return problems


def check_postings(events: Iterable[Event], result: Result | None = None) -> list[str]:
    """The postings of each event and of the result sum to zero."""
    problems = []
    for event in events:
        total = sum(p.amount for p in event.postings)
        if total:
            problems.append(f"event {event.kind}: postings sum to {total}, not 0")
    if result is not None:
        total = sum(p.amount for p in result.postings)
        if total:
            problems.append(f"result: postings sum to {total}, not 0")
    return problems


def allowed(census: Mapping[str, Sequence[Card]], seat: int | None) -> Counter[str]:
    """How many copies of each card (by value, e.g. ``7H``) ``seat`` may see now."""
    counts: Counter[str] = Counter()
    for location, cards in census.items():
        if seen_by(location, seat):
            counts.update(str(card) for card in cards)
    return counts


def _tokens(node: Any, into: Counter[str]) -> None:
    """Card names in a list of cards, or of groups of cards (dicts inside are not entered)."""
    if isinstance(node, str):
        if _CARD.fullmatch(node):
            into[node] += 1
    elif isinstance(node, list | tuple):
        for item in node:
            _tokens(item, into)


def _fields(
    node: Any,
    viewer: int | None,
    shape: ViewShape,
    skip: frozenset[str],
    total: Counter[str],
    alone: list[tuple[str, Counter[str]]],
    path: str,
    repeat: bool,
    deep: bool = False,
) -> None:
    """Walk JSON data: cards of ordinary fields add up into ``total``; fields that repeat others
    go to ``alone`` one by one. Keys in ``skip`` are left out at the top (everywhere if
    ``deep``)."""
    if isinstance(node, Mapping):
        if "seat" in node and viewer is not None and node.get("seat") == viewer and path:
            repeat = True
        for key, value in node.items():
            if key in skip or key in shape.names:
                continue
            _fields(
                value,
                viewer,
                shape,
                skip if deep else frozenset(),
                total,
                alone,
                f"{path}.{key}" if path else str(key),
                repeat or key in shape.repeats,
                deep,
            )
        return
    if isinstance(node, list | tuple):
        if any(isinstance(item, Mapping) for item in node):
            for index, item in enumerate(node):
                inner = skip if deep else frozenset()
                _fields(item, viewer, shape, inner, total, alone, f"{path}[{index}]", repeat, deep)
            return
    elif not isinstance(node, str):
        return
    found: Counter[str] = Counter()
    _tokens(node, found)
    if not found:
        return
    if repeat:
        alone.append((path, found))
    else:
        total.update(found)


def _excess(shown: Counter[str], may: Counter[str]) -> list[str]:
    return [
        f"{count} x {card} (may see {may[card]})"
        for card, count in sorted(shown.items())
        if count > may[card]
    ]


def check_view(
    view: Mapping[str, Any], viewer: int | None, may: Counter[str], shape: ViewShape = RUMMY_VIEWS
) -> list[str]:
    """No part of ``view`` shows more copies of a card than ``may`` allows."""
    total: Counter[str] = Counter()
    alone: list[tuple[str, Counter[str]]] = []
    _fields(view, viewer, shape, shape.past, total, alone, "", False)
    who = "spectators" if viewer is None else f"seat {viewer}"
    problems = []
    if excess := _excess(total, may):
        problems.append(f"view of {who} leaks {', '.join(excess)}")
    for path, found in alone:
        if excess := _excess(found, may):
            problems.append(f"view of {who} leaks at {path}: {', '.join(excess)}")
    return problems


def viewers(game: Game) -> list[int | None]:
    """The spectators (None) and every seat."""
    return [None, *range(1, game.seats + 1)]


def check_views(
    game: Game,
    census: Mapping[str, Sequence[Card]] | None = None,
    shape: ViewShape = RUMMY_VIEWS,
) -> list[str]:
    """Every seat's view and the spectators' show only what they may see, and the same past."""
    places = game.census() if census is None else census
    problems: list[str] = []
    past: dict[str, Any] | None = None
    for viewer in viewers(game):
        view = game.view(viewer)
        problems += check_view(view, viewer, allowed(places, viewer), shape)
        mine = {key: view.get(key) for key in sorted(shape.past)}
        if past is None:
            past = mine
        elif mine != past:
            changed = [key for key in mine if mine[key] != past[key]]
            problems.append(
                f"view of seat {viewer} differs from the spectators' in {', '.join(changed)}"
            )
    return problems


def check_events(
    events: Iterable[Event],
    before: Mapping[int | None, Counter[str]],
    after: Mapping[int | None, Counter[str]],
    shape: ViewShape = RUMMY_VIEWS,
) -> list[str]:
    """An event shows a seat only cards it could see just before or just after the action
    (a card taken from the open pile was public before; a card drawn is the drawer's after)."""
    problems = []
    for event in events:
        total: Counter[str] = Counter()
        alone: list[tuple[str, Counter[str]]] = []
        _fields(event.data, None, shape, shape.event_past, total, alone, "", False, True)
        if not total and not alone:
            continue
        for viewer, may_after in after.items():
            if not event.visible_to(viewer):
                continue
            may = may_after | before.get(viewer, Counter())
            for found in (total, *(counts for _, counts in alone)):
                if excess := _excess(found, may):
                    who = "spectators" if viewer is None else f"seat {viewer}"
                    problems.append(f"event {event.kind} shows {who} {', '.join(excess)}")
                    break
    return problems


class Invariants:
    """Checks one game after each of its actions: ``check(events)`` with the events the action
    returned. Keeps what every seat could see after the previous action, for the event check."""

    def __init__(self, game: Game, shoe: Iterable[Card], shape: ViewShape | None = None) -> None:
        self.game = game
        self.shoe = list(shoe)
        self.shape = view_shape(game) if shape is None else shape
        self.checks = 0
        self._before = self._allowed(game.census())

    def _allowed(self, census: Mapping[str, Sequence[Card]]) -> dict[int | None, Counter[str]]:
        return {viewer: allowed(census, viewer) for viewer in viewers(self.game)}

    def check(self, events: Sequence[Event] = ()) -> list[str]:
        self.checks += 1
        census = self.game.census()
        after = self._allowed(census)
        problems = check_cards(census, self.shoe)
        problems += check_postings(events, self.game.result)
        problems += check_views(self.game, census, self.shape)
        problems += check_events(events, self._before, after, self.shape)
        self._before = after
        return problems
