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

import functools
from collections import Counter, _count_elements  # type: ignore[attr-defined]
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any, Final, TypeVar

from rummyhall.cards import JOKER_CODE, Card, from_code
from rummyhall.games.protocol import DEFAULT_VIEWS, Event, Game, Result, ViewShape

HIDDEN_PLACES: Final = frozenset({"closed", "out"})
"""Census locations nobody may see."""
PRIVATE_PLACES: Final = frozenset({"hand", "finish"})
"""Census locations (``place:N``) only seat N may see. Every other location is public."""

CARD_NAMES: Final = frozenset(str(from_code(code)) for code in range(JOKER_CODE + 1))
"""The 53 card names of the notation, upper case: the strings of a view that show a card."""

_SCALARS: Final = frozenset({int, float, bool, type(None)})
_PLAIN: Final = _SCALARS | {str, list, tuple}
"""Types of JSON data that are no mapping, told apart by ``type`` before the slower
``isinstance(..., Mapping)``: a view or an event is walked node by node after every action."""


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
    return ShoeCheck(shoe).check(census)


def _physical_key(card: Card) -> int:
    """A number for each physical card (its code and its copy), cheaper to hash than its name."""
    return card.code + (JOKER_CODE + 1) * card.copy


class ShoeCheck:
    """:func:`check_cards` against one shoe, indexed once for the census after every action."""

    def __init__(self, shoe: Iterable[Card]) -> None:
        self.shoe = list(shoe)
        self.keys = frozenset(_physical_key(card) for card in self.shoe)
        self.distinct = len(self.keys) == len(self.shoe)
        self.ids = frozenset(map(id, self.shoe))
        """The shoe's own card objects (kept alive by :attr:`shoe`): an engine deals them, so a
        census usually holds exactly these objects, which is told without a key per card."""

    def check(self, census: Mapping[str, Sequence[Card]]) -> list[str]:
        if not census:
            return []
        if self.distinct:
            # As many cards as the shoe, all of them distinct and all from the shoe: all is well.
            places = census.values()
            if sum(map(len, places)) == len(self.shoe):
                # The shoe's very cards, each once: as many distinct objects as the shoe's, all
                # of them the shoe's (one set, compared in C).
                if self.ids == set(map(id, chain.from_iterable(places))):
                    return []
                copies = JOKER_CODE + 1  # _physical_key, inline: the census has every card
                keys = [card.code + copies * card.copy for card in chain.from_iterable(places)]
                if self.keys.issuperset(keys) and len(set(keys)) == len(keys):
                    return []
        return _card_problems(census, self.shoe)


def _card_problems(census: Mapping[str, Sequence[Card]], shoe: Sequence[Card]) -> list[str]:
    """What :func:`check_cards` says, in words, about a census that is not the shoe."""
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


_Counted = TypeVar("_Counted", bound=Counter[str])


class Allowed(Counter[str]):
    """What a viewer may see, as :func:`allowed` counts it: every card in it at least once (a
    card it may not see is not in it), which lets a check of cards shown once each look only at
    the names."""

    @staticmethod
    def of(names: list[str]) -> Allowed:
        """``Allowed(names)``, as :func:`_count` counts it."""
        return _count(Allowed(), names)


def _count(into: _Counted, names: list[str]) -> _Counted:
    """``names`` counted into the empty ``into``: what ``Counter(names)`` does, by the C helper
    its ``update`` ends in, without the Python frames of ``__init__`` and ``update`` before it
    (the checks count what each viewer may see, and what views show, after every action)."""
    _count_elements(into, names)
    return into


def allowed(census: Mapping[str, Sequence[Card]], seat: int | None) -> Counter[str]:
    """How many copies of each card (by value, e.g. ``7H``) ``seat`` may see now."""
    return allowed_by(census, [seat])[seat]


def allowed_by(
    census: Mapping[str, Sequence[Card]], seats: Iterable[int | None]
) -> dict[int | None, Counter[str]]:
    """:func:`allowed` for several seats at once, naming the cards of each location once."""
    return {seat: Allowed(sight.everything()) for seat, sight in sights(census, seats).items()}


class Sight:
    """What one viewer may see, in two parts: ``shared``, what every viewer checked with it sees
    (one counter for all of them: the public cards), and ``own``, the rest (a seat's hand...).
    The whole, :meth:`everything`, is added up only when a check needs the counts."""

    __slots__ = ("_everything", "own", "shared")

    def __init__(self, shared: Counter[str], own: Counter[str]) -> None:
        self.shared = shared
        self.own = own
        self._everything: Counter[str] | None = None

    @staticmethod
    def of(may: Counter[str]) -> Sight:
        """A caller's counter of what a viewer may see, as a sight (all of it its own)."""
        return Sight(Allowed(), may)

    def everything(self) -> Counter[str]:
        """How many copies of each card the viewer may see (:func:`allowed`)."""
        if self._everything is None:
            if not self.shared:
                self._everything = self.own
            elif not self.own:
                self._everything = self.shared
            else:
                whole = self.shared.copy()
                whole.update(self.own)
                self._everything = whole
        return self._everything

    def within(self, shown: list[str]) -> bool:
        """Whether the viewer may see every card of ``shown`` (copies counted)."""
        if type(self.shared) is Allowed and type(self.own) is Allowed:
            distinct = set(shown)
            if len(distinct) == len(shown):
                # Each card once: allowed when named in either part (both count from one).
                return self.own.keys() >= distinct.difference(self.shared)
        return not _exceeds(_count(Counter(), shown), self.everything())

    def owns(self, shown: list[str]) -> bool:
        """Whether the viewer's own part alone allows every card of ``shown``."""
        return _within(shown, self.own)


def sights(
    census: Mapping[str, Sequence[Card]], seats: Iterable[int | None]
) -> dict[int | None, Sight]:
    """What each of ``seats`` may see (:class:`Sight`), naming the cards of each location once
    and the cards all of them see once for all."""
    names: dict[int | None, list[str]] = {seat: [] for seat in seats}
    everyone = tuple(names)
    public: list[str] = []
    known = _SEEING.get(everyone)
    if known is None or len(known) > 4096:
        known = _SEEING[everyone] = {}
    for location, cards in census.items():
        if not cards:
            continue
        seeing = known.get(location)
        if seeing is None:
            seeing = known[location] = _seeing(location, everyone)
        if len(seeing) == len(everyone):
            public += [card.text for card in cards]
        elif seeing:
            texts = [card.text for card in cards]
            for seat in seeing:
                names[seat] += texts
    shared = Allowed.of(public)
    return {seat: Sight(shared, Allowed.of(texts)) for seat, texts in names.items()}


_SEEING: dict[tuple[int | None, ...], dict[str, tuple[int | None, ...]]] = {}
""":func:`_seeing` by viewers and location, looked up by the location's name alone (a census is
read after every checked action)."""


@functools.lru_cache(maxsize=4096)
def _seeing(location: str, seats: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """Those of ``seats`` that may see ``location`` (the few names a game uses, parsed once)."""
    return tuple(seat for seat in seats if seen_by(location, seat))


def _tokens(items: Iterable[Any], into: list[str]) -> None:
    """Card names in a list of cards, or of groups of cards (dicts inside are not entered)."""
    for item in items:
        kind = type(item)
        if kind is str:
            if item in CARD_NAMES:
                into.append(item)
        elif kind is list or kind is tuple:
            _tokens(item, into)
        elif kind not in _PLAIN:
            if isinstance(item, str):
                if item in CARD_NAMES:
                    into.append(item)
            elif isinstance(item, list | tuple):
                _tokens(item, into)


_Path = tuple[Any, Any, bool] | None
"""Where a field is, built as the walk goes down and written out only for a report: (the path
of its parent, its key or index, whether that is an index); None is the top."""


def _path_text(path: _Path) -> str:
    steps: list[tuple[Any, bool]] = []
    while path is not None:
        path, step, index = path
        steps.append((step, index))
    text = ""
    for step, index in reversed(steps):
        text = f"{text}[{step}]" if index else f"{text}.{step}" if text else str(step)
    return text


_Alone = list[tuple[_Path, list[str]]]
"""The cards of fields that repeat others, each field on its own, with where it is."""


def _fields(
    node: Any,
    viewer: int | None,
    shape: ViewShape,
    skip: frozenset[str],
    *,
    deep: bool = False,
) -> tuple[list[str], _Alone]:
    """Walk JSON data: the card names of ordinary fields (all together) and of the fields that
    repeat others (each on its own, with where it is). Keys in ``skip`` are left out at the top
    (everywhere if ``deep``)."""
    total: list[str] = []
    alone: _Alone = []
    top = skip | shape.names
    below = top if deep else shape.names
    _Walker(viewer, shape.repeats, below, total, alone, None).walk(node, top, None, False)
    return total, alone


_Found = tuple[list[str], _Alone, list[Any]]
"""What the spectators' walk of one field of a view found (:func:`_fields_by_field`): the cards
of its ordinary parts, of its parts that repeat others, and the seats named inside."""
_Field = tuple[list[str], _Alone, list[Any], list[_Found] | None]
"""A field's :data:`_Found` and, for a list, what each of its items holds (else None)."""


def _fields_by_field(view: Mapping[str, Any], shape: ViewShape) -> dict[str, _Field]:
    """The spectators' :func:`_fields` of a view, field by field at the top (fields of numbers
    and words left out): the cards of its ordinary parts, of its parts that repeat others, and
    the ``seat`` of every mapping inside, the one thing that makes a walk depend on the
    viewer. A list of mappings (not a repeat) is walked item by item, as :class:`_Walker` walks
    it, each item's finds kept apart, so that a seat's list that differs in one item (its own
    entry among the seats) reuses the others."""
    found: dict[str, _Field] = {}
    top = shape.past | shape.names
    total: list[str] = []
    alone: _Alone = []
    seats: list[Any] = []
    # One walker for every field, each field's finds sliced off the shared lists after it.
    walker = _Walker(None, shape.repeats, shape.names, total, alone, seats)
    for key, value in view.items():
        kind = type(value)
        if key in top or kind in _SCALARS or (kind is str and value not in CARD_NAMES):
            continue
        counts = len(total), len(alone), len(seats)
        items: list[_Found] | None = None
        if kind is list and key not in shape.repeats and _has_mapping(value):
            items = []
            for index, item in enumerate(value):
                before = len(total), len(alone), len(seats)
                walker.walk(item, shape.names, ((None, key, False), index, True), False)
                items.append((total[before[0] :], alone[before[1] :], seats[before[2] :]))
        else:
            walker.walk({key: value}, top, None, False)
        found[key] = (total[counts[0] :], alone[counts[1] :], seats[counts[2] :], items)
    return found


def _has_mapping(items: list[Any]) -> bool:
    """Whether :class:`_Walker` walks the items of this list one by one: it holds a mapping."""
    for item in items:
        kind = type(item)
        if kind is dict or (kind not in _PLAIN and isinstance(item, Mapping)):
            return True
    return False


class _Walker:
    """The walk of :func:`_fields` into ``total`` and ``alone`` (and the seats named inside into
    ``seats``, if given); keys in ``below`` are left out below the top.

    A class rather than a nested function that calls itself: such a function is a reference
    cycle, garbage only the collector frees, and the checks made one per view and event, which
    set off a collection every few actions."""

    __slots__ = ("alone", "below", "repeats", "seats", "total", "viewer")

    def __init__(
        self,
        viewer: int | None,
        repeats: frozenset[str],
        below: frozenset[str],
        total: list[str],
        alone: _Alone,
        seats: list[Any] | None,
    ) -> None:
        self.viewer = viewer
        self.repeats = repeats
        self.below = below
        self.total = total
        self.alone = alone
        self.seats = seats

    def walk(self, node: Any, blocked: frozenset[str], path: _Path, repeat: bool) -> None:
        kind = type(node)
        if kind is dict or (kind not in _PLAIN and isinstance(node, Mapping)):
            if path is not None and "seat" in node:
                seat = node.get("seat")
                if self.seats is not None:
                    self.seats.append(seat)
                repeat = repeat or (self.viewer is not None and seat == self.viewer)
            repeats = self.repeats
            scalars = _SCALARS
            for key, value in node.items():
                # Numbers first, the most common values (a left-out key is skipped either way),
                # then strings, without a call.
                value_kind = type(value)
                if value_kind in scalars or key in blocked:
                    continue
                if value_kind is str:
                    if value in CARD_NAMES:
                        if repeat or key in repeats:
                            self.alone.append(((path, key, False), [value]))
                        else:
                            self.total.append(value)
                else:
                    self.walk(value, self.below, (path, key, False), repeat or key in repeats)
            return
        found: list[str] = []
        if kind is list or kind is tuple or (kind not in _PLAIN and isinstance(node, list | tuple)):
            for item in node:
                item_kind = type(item)
                if item_kind is str:
                    if item in CARD_NAMES:
                        found.append(item)
                elif item_kind is list or item_kind is tuple:
                    _tokens(item, found)
                elif item_kind is dict or (item_kind not in _PLAIN and isinstance(item, Mapping)):
                    # A list with a mapping in it: each item on its own.
                    for index, each in enumerate(node):
                        self.walk(each, self.below, (path, index, True), repeat)
                    return
                elif item_kind not in _SCALARS:
                    _tokens((item,), found)
        elif isinstance(node, str) and node in CARD_NAMES:
            found.append(node)
        if not found:
            return
        if repeat:
            self.alone.append((path, found))
        else:
            self.total.extend(found)


def _reusable(found: _Found | _Field, viewer: int | None) -> bool:
    """Whether the spectators' find in a field holds for ``viewer``'s equal field: no part of it
    repeats others (their order is the order of the reports), and it shows no card or names no
    seat of the viewer (whose cards would repeat the viewer's own)."""
    names, alone, seats = found[:3]
    return not alone and (not names or viewer not in seats)


def _exceeds(shown: Counter[str], may: Counter[str]) -> bool:
    # ``get``: a Counter's own look-up of a missing card is a call to Python code; and a loop
    # rather than any() over a generator, which costs a frame switch per card.
    get = may.get
    for card, count in shown.items():  # noqa: SIM110
        if count > get(card, 0):
            return True
    return False


def _within(shown: list[str], may: Counter[str]) -> bool:
    """Whether ``may`` allows every card of ``shown``. Against what :func:`allowed` built (every
    card in it counted at least once), told without counting when no card is shown twice (the
    usual case): each such card needs only to be named in it."""
    if type(may) is Allowed:
        distinct = set(shown)
        if len(distinct) == len(shown):
            return may.keys() >= distinct
    return not _exceeds(_count(Counter(), shown), may)


def _excess(shown: Counter[str], may: Counter[str]) -> list[str]:
    if not _exceeds(shown, may):
        return []
    over = [card for card, count in shown.items() if count > may[card]]
    return [f"{shown[card]} x {card} (may see {may[card]})" for card in sorted(over)]


def check_view(
    view: Mapping[str, Any], viewer: int | None, may: Counter[str], shape: ViewShape = RUMMY_VIEWS
) -> list[str]:
    """No part of ``view`` shows more copies of a card than ``may`` allows."""
    total, alone = _fields(view, viewer, shape, shape.past)
    return _leaks(total, alone, viewer, Sight.of(may))


def _leaks(total: list[str], alone: _Alone, viewer: int | None, sight: Sight) -> list[str]:
    """What :func:`check_view` says of the cards a view shows (as :func:`_fields` finds them)."""
    if sight.within(total) and all(sight.within(found) for _, found in alone):
        return []
    may = sight.everything()
    who = "spectators" if viewer is None else f"seat {viewer}"
    problems = []
    if excess := _excess(Counter(total), may):
        problems.append(f"view of {who} leaks {', '.join(excess)}")
    for path, found in alone:
        if excess := _excess(Counter(found), may):
            problems.append(f"view of {who} leaks at {_path_text(path)}: {', '.join(excess)}")
    return problems


def viewers(game: Game) -> list[int | None]:
    """The spectators (None) and every seat."""
    return [None, *range(1, game.seats + 1)]


def check_views(
    game: Game,
    census: Mapping[str, Sequence[Card]] | None = None,
    shape: ViewShape = RUMMY_VIEWS,
    *,
    may: Mapping[int | None, Counter[str]] | None = None,
) -> list[str]:
    """Every seat's view and the spectators' show only what they may see, and the same past.
    ``may``: what each viewer may see (:func:`allowed`), if the caller has it already."""
    everyone = viewers(game)
    if may is None:
        seen = sights(game.census() if census is None else census, everyone)
    else:
        seen = {viewer: Sight.of(may[viewer]) for viewer in everyone}
    return _check_views(game, shape, seen, {})


def _check_views(
    game: Game,
    shape: ViewShape,
    seen: Mapping[int | None, Sight],
    built: dict[int | None, Mapping[str, Any]],
    layouts: list[_Layout] | None = None,
) -> list[str]:
    """:func:`check_views` with what each viewer may see as :class:`Sight` s; the views checked
    are kept in ``built``, by viewer, for a caller that needs them too. ``layouts``: the last
    :class:`_Layout` of the seats' views (a caller's, kept from check to check)."""
    past_keys = sorted(shape.past)
    top = shape.past | shape.names
    problems: list[str] = []
    past: tuple[Any, ...] | None = None
    # What the spectators' view shows, field by field: a seat's field (or item of a list) equal
    # to theirs shows the same cards, and is not walked again where that holds for the seat
    # (_reusable). Those cards are public, within what the seat may see when they are within
    # the spectators' allowance; so a seat's view is within its own when the rest is within
    # its own cards. Else its cards are added up as a whole, as the report needs them.
    spectators: Mapping[str, Any] = {}
    theirs: dict[str, _Field] = {}
    public_ok = False
    kept = [] if layouts is None else layouts
    layout = kept[0] if kept else None
    public = seen[None]
    # The shortcut holds where a seat's sight adds its own cards to the spectators' (sights()).
    split = not public.own
    everyone = viewers(game)
    for viewer, view in zip(everyone, game.views(everyone), strict=True):
        built[viewer] = view
        sight = seen[viewer]
        if viewer is None:
            spectators, theirs = view, _fields_by_field(view, shape)
            total: list[str] = []
            alone: _Alone = []
            for names, apart, _, _ in theirs.values():
                total += names
                alone += apart
            found = _leaks(total, alone, viewer, sight)
            public_ok = not found
            problems += found
        else:
            keys = list(view)
            if layout is None or layout.keys != keys:
                layout = _Layout(keys, top, spectators)
                kept[:] = [layout]
            look = layout.of(view)
            total, reused, alone = _seat_fields(view, look, viewer, shape, top, spectators, theirs)
            quick = public_ok and split and sight.shared is public.shared and sight.owns(total)
            if not (quick and all(sight.within(names) for _, names in alone)):
                problems += _leaks(total + reused, alone, viewer, sight)
        mine = tuple(map(view.get, past_keys))  # in C: once per viewer and action
        if past is None:
            past = mine
        elif mine != past:
            changed = [key for key, a, b in zip(past_keys, mine, past, strict=True) if a != b]
            problems.append(
                f"view of seat {viewer} differs from the spectators' in {', '.join(changed)}"
            )
    return problems


class _Layout:
    """The keys of the seats' views, which are alike from seat to seat and action to action:
    those to look at, in the view's order, and those whose values were numbers in the
    spectators' view when it was made (``plain``), left out at one go while they are numbers
    in the view at hand too (:meth:`of`). A view with other keys gets a layout of its own."""

    __slots__ = ("keys", "look", "plain")

    def __init__(self, keys: list[str], top: frozenset[str], spectators: Mapping[str, Any]):
        self.keys = keys
        self.plain = [
            key
            for key in keys
            if key not in top and key in spectators and type(spectators[key]) in _SCALARS
        ]
        skip = top.union(self.plain)
        self.look = [key for key in keys if key not in skip]

    def of(self, view: Mapping[str, Any]) -> list[str]:
        """The keys of ``view`` to look at, in its order."""
        if _SCALARS.issuperset(map(type, map(view.__getitem__, self.plain))):
            return self.look
        return self.keys


def _seat_fields(
    view: Mapping[str, Any],
    keys: Iterable[str],
    viewer: int,
    shape: ViewShape,
    top: frozenset[str],
    spectators: Mapping[str, Any],
    theirs: Mapping[str, _Field],
) -> tuple[list[str], list[str], _Alone]:
    """A seat's :func:`_fields`: the cards of its own fields, those of its fields (or items)
    equal to the spectators' that their walk found (``reused``), and the parts that repeat
    others. The same walk as :func:`_fields`, field by field in the view's order; ``keys``: the
    view's keys, in its order, less some whose values are numbers (:class:`_Layout`)."""
    total: list[str] = []
    reused: list[str] = []
    alone: _Alone = []
    repeats = shape.repeats
    below = shape.names
    walker = _Walker(viewer, repeats, below, total, alone, None)
    scalars = _SCALARS
    for key in keys:
        value = view[key]
        kind = type(value)
        if kind in scalars or key in top:
            continue
        if kind is str:
            if value in CARD_NAMES:
                if key in repeats:
                    alone.append(((None, key, False), [value]))
                else:
                    total.append(value)
            continue
        field = theirs.get(key)
        if field is not None:
            spectators_value = spectators[key]
            if _reusable(field, viewer) and value == spectators_value:
                reused += field[0]
                continue
            items = field[3]
            same_size = items is not None and kind is list and len(value) == len(items)
            if same_size and _has_mapping(value):
                assert items is not None
                path: _Path = (None, key, False)
                for index, item in enumerate(value):
                    names, apart, named = items[index]
                    # _reusable, inline: once per item of every seat's view.
                    reusable = not apart and (not names or viewer not in named)
                    if reusable and item == spectators_value[index]:
                        reused += names
                    else:
                        walker.walk(item, below, (path, index, True), False)
                continue
        walker.walk(value, below, (None, key, False), key in repeats)
    return total, reused, alone


def check_events(
    events: Iterable[Event],
    before: Mapping[int | None, Counter[str]],
    after: Mapping[int | None, Counter[str]],
    shape: ViewShape = RUMMY_VIEWS,
) -> list[str]:
    """An event shows a seat only cards it could see just before or just after the action
    (a card taken from the open pile was public before; a card drawn is the drawer's after)."""
    was = {viewer: Sight.of(may) for viewer, may in before.items()}
    return _check_events(
        events, was, {viewer: Sight.of(may) for viewer, may in after.items()}, shape
    )


def _check_events(
    events: Iterable[Event],
    before: Mapping[int | None, Sight],
    after: Mapping[int | None, Sight],
    shape: ViewShape,
) -> list[str]:
    """:func:`check_events` with what each viewer may see as :class:`Sight` s."""
    problems = []
    # Where every viewer's sight adds its own cards to the spectators' (sights()), what the
    # spectators may see every viewer may: an event for everyone within it is checked once.
    public = after.get(None)
    if public is not None and (
        public.own or any(s.shared is not public.shared for s in after.values())
    ):
        public = None  # not the split sights() makes: each viewer on its own
    for event in events:
        data = event.data
        if type(data) is dict and _SCALARS.issuperset(map(type, data.values())):
            continue  # numbers only (a turn's seat and deadline...): no card in it
        names, apart = _fields(data, None, shape, shape.event_past, deep=True)
        if not names and not apart:
            continue
        parts = [names, *(found for _, found in apart)]
        if public is not None and event.to is None and all(map(public.within, parts)):
            continue
        for viewer, sight in after.items():
            if not event.visible_to(viewer):
                continue
            for found in parts:
                if sight.within(found):
                    continue  # within what the seat sees after: within the union too
                earlier = before.get(viewer)
                may = sight.everything() | (Counter() if earlier is None else earlier.everything())
                if excess := _excess(Counter(found), may):
                    who = "spectators" if viewer is None else f"seat {viewer}"
                    problems.append(f"event {event.kind} shows {who} {', '.join(excess)}")
                    break
    return problems


class Invariants:
    """Checks one game after each of its actions: ``check(events)`` with the events the action
    returned. Keeps what every seat could see after the previous action, for the event check."""

    def __init__(self, game: Game, shoe: Iterable[Card], shape: ViewShape | None = None) -> None:
        self.game = game
        self.shoe = ShoeCheck(shoe)
        self.shape = view_shape(game) if shape is None else shape
        self.checks = 0
        self._before = self._sights(game.census())
        self._views: dict[int | None, Mapping[str, Any]] = {}
        self._layouts: list[_Layout] = []

    def _sights(self, census: Mapping[str, Sequence[Card]]) -> dict[int | None, Sight]:
        return sights(census, viewers(self.game))

    def check(self, events: Sequence[Event] = ()) -> list[str]:
        self.checks += 1
        census = self.game.census()
        after = self._sights(census)
        problems = self.shoe.check(census)
        problems += check_postings(events, self.game.result)
        self._views = {}
        problems += _check_views(self.game, self.shape, after, self._views, self._layouts)
        problems += _check_events(events, self._before, after, self.shape)
        self._before = after
        return problems

    def take_view(self, seat: int) -> Mapping[str, Any]:
        """``seat``'s view of the game as the last :meth:`check` saw it, if the game has not
        changed since (the caller's word), handed out once: a runner's bot acts on the view
        that was just checked instead of having it built again. Else a fresh view."""
        view = self._views.pop(seat, None)
        return self.game.view(seat) if view is None else view
