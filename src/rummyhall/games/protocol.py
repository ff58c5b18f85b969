"""The protocol every game engine follows, so that the server, the store, the bots and the browser
client can drive any game the same way (DESIGN.md, principle 2).

An engine is a pure state machine. It is created from a typed, frozen config; randomness comes
in as explicit decks (the house *deals*), time comes in as the ``at`` stamp of each action, in
milliseconds. Then:

* :meth:`Game.awaited` says whose input the game waits for, and by when;
* :meth:`Game.legal` lists what a seat may do now;
* :meth:`Game.apply` takes ``(seat, action, at)`` and returns :class:`Event` s, or raises a
  :class:`GameError` with a stable code and leaves the state exactly as it was;
* :meth:`Game.view` is everything one seat may see (``None``: a spectator), and the only way hidden
  cards leave the engine;
* :attr:`Game.result` is set when the game is over: points per seat and ledger-ready postings.

Seats are numbered from 1. Seat 0 is the house: it deals (``deal`` actions, carrying the deck)
and nothing else. A timeout is an ordinary action (``timeout``) that the server applies for the
awaited seat once its deadline has passed; the engine decides what it means.

Every accepted action is recorded; :func:`replay` rebuilds a game from its record.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeVar, cast

from rummyhall.cards import JOKER_CODE, Card, format_cards, parse_physical
from rummyhall.games.protocol_views import ResultView
from rummyhall.native import mypyc_attr
from rummyhall.shuffle import FairDeal

HOUSE = 0
"""The seat number of the house, which deals."""

JSON = dict[str, Any]

View = Mapping[str, Any]
"""What :meth:`Game.view` returns, seen from code that drives any game. Each game narrows it to
its own ``TypedDict`` (``games/<name>/views.py``: ``Indian13View``, ``PattiView``), which its bot,
terminal table and text renderer read, so that mypy checks their keys."""


class GameError(Exception):
    """An action the engine refuses. ``code`` is stable (clients translate it), ``message`` is
    for people. The game's state is unchanged."""

    code: ClassVar[str] = "game_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadAction(GameError):
    """The action text does not parse, or names no action of this game."""

    code = "bad_action"


class NotYourTurn(GameError):
    code = "not_your_turn"


class IllegalAction(GameError):
    """A well-formed action the rules do not allow now."""

    code = "illegal_action"


class InvalidCards(GameError):
    """Cards the seat does not hold, or that cannot be played that way."""

    code = "invalid_cards"


class GameOver(GameError):
    code = "game_over"


class UnknownSeat(GameError):
    code = "unknown_seat"


class TooEarly(GameError):
    """A timeout before the deadline."""

    code = "too_early"


class TooLate(GameError):
    """An action after the seat's deadline: only the server's ``timeout`` is left."""

    code = "too_late"


ERROR_CODES: tuple[str, ...] = (
    BadAction.code,
    NotYourTurn.code,
    IllegalAction.code,
    InvalidCards.code,
    GameOver.code,
    UnknownSeat.code,
    TooEarly.code,
    TooLate.code,
)


@dataclass(frozen=True, slots=True)
class Awaited:
    """A seat the game waits for: what for (``turn``, ``declare``, ``deal``, ...) and the time by
    which the server should apply a ``timeout`` for it (None: no limit)."""

    seat: int
    kind: str
    deadline: int | None


@dataclass(frozen=True, slots=True)
class Posting:
    """One leg of a chip transfer. Accounts are ``seat:N`` for the chips the player in seat N has
    at the table, ``pot`` for the table's pot and ``house`` for the rake. The postings of one event
    or result sum to zero; the server writes them to the ledger with the action that caused them."""

    account: str
    amount: int


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for clients to animate. ``to`` limits who may see it (None:
    everyone, spectators included); views stay the source of truth. ``postings`` are the chips
    the action moved (a pool entry, a bet), if any."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    to: frozenset[int] | None = None
    postings: tuple[Posting, ...] = ()

    def visible_to(self, seat: int | None) -> bool:
        return self.to is None or (seat is not None and seat in self.to)


D = TypeVar("D")


def data_of(event: Event, shape: type[D]) -> D:
    """``event.data`` read as ``shape``, the ``TypedDict`` its game declares for its kind
    (:attr:`Game.event_types`), so that mypy checks the keys a reader uses. The engine built the
    data as that type, and the conformance suite checks every event of its playouts against it."""
    return cast(D, event.data)


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: points per seat (the game's own scoring), the winning seats, and the
    chip postings that settle it."""

    points: Mapping[int, int]
    winners: tuple[int, ...]
    postings: tuple[Posting, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if sum(p.amount for p in self.postings) != 0:
            raise ValueError("postings must sum to zero")

    def to_json(self) -> ResultView:
        return {
            "points": {str(seat): pts for seat, pts in self.points.items()},
            "winners": list(self.winners),
            "postings": [{"account": p.account, "amount": p.amount} for p in self.postings],
            "detail": dict(self.detail),
        }


@dataclass(frozen=True, slots=True)
class Standing:
    """How one seat finished a game, as the room's progression counts it (clover points, rating:
    :mod:`rummyhall.economy.progression`). ``place`` is from 1; the card bonuses are zero in the
    games that have none (DECISIONS: other games count their places only)."""

    place: int
    cards_thrown: int = 0
    opened: bool = False
    rummy: bool = False


def places_by_chips(nets: Mapping[int, int]) -> dict[int, Standing]:
    """Places from what each seat won or lost over the game: more chips, better place; seats
    that did equally well share the better place (two second places, then fourth)."""
    return {
        seat: Standing(place=1 + sum(other > net for other in nets.values()))
        for seat, net in nets.items()
    }


@dataclass(frozen=True, slots=True)
class Deal:
    """What the house deals: a deck (top card first) and, for provably-fair deals, the seeds that
    produce it. In records a fair deal is stored as its seeds, any other as its cards.

    A refill of the closed deck (rummy games) is a deal too. A provable one (:meth:`of_refill`)
    says which refill of its deal it is (``refill``: 1, 2, ...) and which cards it shuffled
    (``source``: the open pile under its top card, bottom first); its deck is the order the deal's
    seeds give those cards (:meth:`rummyhall.shuffle.FairDeal.refill`). A record stores it as
    ``{"refill": r, "from": <source>, "cards": <deck>}``, without the seeds: they are in the
    deal's own entry, earlier in the record (:func:`refill_checks` checks one against the other).
    """

    deck: tuple[Card, ...]
    fair: FairDeal | None = None
    """The seeds of a new fair deal (None for a refill: its seeds are those of its deal)."""
    refill: int | None = None
    """For a refill derived from its deal's seeds: its number within the deal, from 1."""
    source: tuple[Card, ...] = ()
    """For such a refill: the cards it shuffled, the open pile under its top card, bottom first."""

    @staticmethod
    def of_fair(fair: FairDeal, decks: int, jokers: int) -> Deal:
        return Deal(tuple(fair.order(decks, jokers)), fair)

    @staticmethod
    def of_refill(fair: FairDeal, number: int, source: Sequence[Card]) -> Deal:
        """Refill ``number`` (1, 2, ...) of the deal dealt from ``fair``: ``source`` (the physical
        cards under the open pile's top card, bottom first, :meth:`Game.refill_source`) in the
        order the deal's seeds fix for it."""
        return Deal(tuple(fair.refill(number, source)), refill=number, source=tuple(source))

    def to_json(self, decks: int, jokers: int) -> JSON:
        if self.fair is not None:
            return {**self.fair.to_revealed(), "decks": decks, "jokers": jokers}
        cards = " ".join(card.physical for card in self.deck)
        if self.refill is not None:
            source = " ".join(card.physical for card in self.source)
            return {"refill": self.refill, "from": source, "cards": cards}
        return {"cards": cards}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Deal:
        if "server_seed" in data:
            fair = FairDeal(
                bytes.fromhex(str(data["server_seed"])),
                str(data["client_seed"]),
                int(data["nonce"]),
            )
            return Deal.of_fair(fair, int(data["decks"]), int(data["jokers"]))
        deck = tuple(parse_physical(token) for token in str(data["cards"]).split())
        if "refill" in data:
            source = tuple(parse_physical(token) for token in str(data["from"]).split())
            return Deal(deck, refill=int(data["refill"]), source=source)
        return Deal(deck)

    def __str__(self) -> str:
        if self.fair is not None:
            return f"deal fair commitment={self.fair.commitment} nonce={self.fair.nonce}"
        if self.refill is not None:
            return f"refill {self.refill} of {len(self.source)} cards"
        return f"deal {format_cards(self.deck[:5])} ... ({len(self.deck)} cards)"


@dataclass(frozen=True, slots=True)
class ViewShape:
    """How to read a game's views for the leak check of :mod:`rummyhall.games.invariants`.

    ``past``: top-level keys that describe earlier deals or fixed facts (history, result, the
    toss, the cut card) rather than where cards lie now; they are not counted but must be equal in
    every view. ``repeats``: keys whose cards repeat other parts of the same view (a player's own
    arrangement repeats their hand); each is checked on its own instead of being added up. An entry
    of a list of seats whose ``seat`` is the viewer repeats the viewer's own cards too.
    ``event_past``: keys inside event data that describe earlier deals. ``names``: keys, at any
    depth of a view or an event, whose values name cards without showing any (what a joker on the
    table stands for: :class:`TableGroupView`); never counted."""

    past: frozenset[str] = frozenset({"history", "result", "toss", "cut"})
    repeats: frozenset[str] = frozenset({"arrangement"})
    event_past: frozenset[str] = frozenset({"deals", "history"})
    names: frozenset[str] = frozenset()


DEFAULT_VIEWS: Final = ViewShape()
"""The rummy games' view shape, every engine's default."""


def next_first(first: int, seats: int) -> int:
    """The seat that moves first in a table's next game when the first move passes one seat on,
    round the table (Rummy Patti, Rummy 51)."""
    return first % seats + 1


def first_of_game(game_no: int, seats: int) -> int:
    """The seat that moves first in game ``game_no`` (1, 2, ...) of a table whose first move
    passes one seat on each game, seat 1 first (:meth:`Game.table_config`)."""
    return (game_no - 1) % seats + 1


def as_dealt(deck: Sequence[Card], cards: Sequence[Card]) -> list[Card] | None:
    """``deck`` as an order of exactly the physical ``cards``, or None if it is not one. A card
    with a copy number must be that very copy; a plain one (copy 0) takes the first copy of its
    value still unused, so a house that only sees values (a view) can deal too. Linear: one pass
    to index ``cards`` by value and by copy, one over ``deck``."""
    if len(deck) != len(cards):
        return None
    if _same_objects(deck, cards):
        return list(deck)
    by_copy: dict[tuple[int, int], int] = {}  # (code, copy) -> its first position
    for position, card in enumerate(cards):
        by_copy.setdefault((card.code, card.copy), position)
    by_value: dict[int, list[int]] | None = None  # code -> positions, for plain cards only
    used = [False] * len(cards)
    first_free: dict[int, int] = {}
    order: list[Card] = []
    for card in deck:
        index: int | None
        if card.copy:
            index = by_copy.get((card.code, card.copy))
        else:
            if by_value is None:
                by_value = {}
                for position, held in enumerate(cards):
                    by_value.setdefault(held.code, []).append(position)
            places = by_value.get(card.code, [])
            at = first_free.get(card.code, 0)
            while at < len(places) and used[places[at]]:
                at += 1
            first_free[card.code] = at
            index = places[at] if at < len(places) else None
        if index is None or used[index]:
            return None
        used[index] = True
        order.append(cards[index])
    return order


def _same_objects(deck: Sequence[Card], cards: Sequence[Card]) -> bool:
    """Whether ``deck`` holds the very card objects of ``cards``, each once, and every one of
    ``cards`` names its own physical card (a copy number, no two alike): then :func:`as_dealt`
    is ``deck`` itself. A fair deal shuffles the shoe's own cards, so a deal is told by identity
    instead of a look-up per card."""
    ids = set(map(id, deck))
    if len(ids) != len(cards) or not ids.issuperset(map(id, cards)):
        return False
    copies = JOKER_CODE + 1
    numbered = {card.code + copies * card.copy for card in cards if card.copy}
    return len(numbered) == len(cards)


def refilled(deal: Deal, under: Sequence[Card], pile: str) -> list[Card]:
    """The new closed deck a refill deals (:meth:`Game.refill_source`): ``deal``'s deck as an
    order of exactly the physical cards ``under`` the top of the discard pile (called ``pile`` in
    the messages). Raises :class:`InvalidCards` for other cards, or for a provable refill whose
    ``source`` is not those cards, bottom first."""
    stock = as_dealt(deal.deck, under)
    if stock is None:
        raise InvalidCards(
            f"a refill must hold exactly the {len(under)} cards of the {pile} under its top "
            "card, in a new order"
        )
    if deal.refill is not None and not same_cards(deal.source, under):
        raise InvalidCards(
            f"a refill's 'from' must list the {pile} under its top card, bottom first"
        )
    return stock


def same_cards(a: Sequence[Card], b: Sequence[Card]) -> bool:
    """Whether two card lists name the same cards in the same order; a card without a copy number
    (copy 0) matches any copy of its value."""
    return len(a) == len(b) and all(
        x == y and (x.copy == y.copy or 0 in (x.copy, y.copy)) for x, y in zip(a, b, strict=True)
    )


@mypyc_attr(allow_interpreted_subclasses=True)
class Game:
    """A game in progress (see the module docstring).

    The methods marked abstract are what every game must provide; mypy holds each engine to
    them. Not an ``ABC``: this class and the rummy engine are compiled (rummyhall.native), and a
    compiled class with a Python class among its bases (``ABC``) keeps a ``__weakref__`` slot
    that mypyc's deallocator mishandles once an interpreted subclass (every game's engine) is
    weakly referenced: the process crashes when the game is freed."""

    name: ClassVar[str]
    """The game's id in configs and records; also the name of its folder, ``games/<name>/``."""

    view_type: ClassVar[Any] = None
    """The ``TypedDict`` :meth:`view` returns (``games/<name>/views.py``). The conformance
    suite checks every view of its playouts against it, key by key."""

    event_types: ClassVar[Mapping[str, Any]] = {}
    """The ``TypedDict`` of each event kind's ``data`` (``games/<name>/events.py``): what the
    engine builds, what the text renderer, the terminal and the tally read
    (:func:`data_of`) and what docs/protocol.md describes. The conformance suite checks that
    every event of its playouts has a listed kind and data of that type."""

    view_shape: ClassVar[ViewShape] = DEFAULT_VIEWS
    """How the invariant checks (:mod:`rummyhall.games.invariants`) read this game's views:
    which parts repeat others or describe the past. The rummy games' shape unless overridden."""

    def __init__(self) -> None:
        self.log: list[JSON] = []
        """Accepted actions as record entries: ``{"seat", "action", "at"}`` (+ ``"deal"``)."""
        self.clock = 0
        """The time of the last accepted action (ms); actions may not go back in time."""

    def __getstate__(self) -> dict[str, Any]:
        """Every attribute, for a copy (``copy.deepcopy``: the conformance suite, the broadcast
        bench) or a pickle. Compiled (rummyhall.native), the attributes this class and the rummy
        engine declare live in the object's own struct and those an interpreted subclass adds in
        its ``__dict__``: mypyc's default would carry the former only. Pure, this is Python's."""
        state = dict(getattr(self, "__dict__", {}))
        for name in getattr(type(self), "__mypyc_attrs__", ()):
            if name != "__dict__" and hasattr(self, name):
                state[name] = getattr(self, name)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    # --- what a game must provide -----------------------------------------------------------

    @property
    @abstractmethod
    def seats(self) -> int:
        """Number of seats (numbered 1..seats)."""

    @abstractmethod
    def config_json(self) -> JSON:
        """The config, as stored in records (:func:`replay` passes it back to :meth:`create`)."""

    @classmethod
    @abstractmethod
    def create(cls, config: Mapping[str, Any]) -> Game:
        """A new game from a config as :meth:`config_json` writes it."""

    @classmethod
    def table_config(
        cls, config: Mapping[str, Any], *, game_no: int, stacks: Mapping[int, int]
    ) -> JSON:
        """The config of game number ``game_no`` (1, 2, ...) at a table whose games all start
        from ``config`` (a room's, with its ``seats``), given the chips each seat holds as the game
        starts (``stacks``, by seat; a seat nobody holds is missing). What carries over from game
        to game is the game's business: Rummy Patti plays with the stacks and passes the first
        move on. The default: ``config`` unchanged."""
        return dict(config)

    @abstractmethod
    def awaited(self) -> list[Awaited]:
        """Who must act next, and by when (from the time of the last accepted action)."""

    @abstractmethod
    def legal(self, seat: int) -> list[str]:
        """The actions ``seat`` may take now, in the game's notation (templates such as
        ``discard <card>`` where the choice is open)."""

    @abstractmethod
    def _apply(self, seat: int, action: str, deal: Deal | None, at: int) -> list[Event]:
        """Validate and apply one action; raise :class:`GameError` before changing anything."""

    @abstractmethod
    def view(self, seat: int | None) -> View:
        """Everything ``seat`` may see now (None: a spectator), as JSON-ready data. Each game
        returns its own ``TypedDict`` (``games/<name>/views.py``)."""

    def views(self, seats: Sequence[int | None]) -> list[View]:
        """The views of several ``seats`` of the same state, in their order: what a room sends
        its watchers after a change. A game whose views share most of their content builds
        that part once here and keeps nothing of it afterwards: a copy kept on the game until
        the next change would be young objects that the room's cycle collector walks at every
        freeze, for every table (server/collector.py). The views may share their unchanged
        parts (views are read, never changed)."""
        return [self.view(seat) for seat in seats]

    @property
    @abstractmethod
    def result(self) -> Result | None:
        """The result once the game is over, else None."""

    @property
    def over(self) -> bool:
        return self.result is not None

    def standings(self, nets: Mapping[int, int]) -> dict[int, Standing]:
        """How each seat finished the game (once it is over), given the chips each seat won or
        lost over it (``nets``, by seat: the table knows them, the engine may not). The default
        places the seats by those chips (:func:`places_by_chips`); a game with its own places
        and card bonuses (Rummy 51) says so."""
        return places_by_chips(nets)

    def leave_move(self, seat: int) -> str | None:
        """The move the table makes for a player who is leaving mid-game, when the game awaits
        ``seat`` now: the game's own way of giving up (a drop, a pack), or a step towards it
        (a discard, so that the next turn can drop). None: nothing to do now (the turn's timer
        plays for them). The default: nothing, ever."""
        return None

    def refill_source(self) -> list[Card]:
        """When the game awaits the house for ``reshuffle``: the physical cards to shuffle into a
        new closed deck, the open pile under its top card, bottom of the pile first (the order
        the provable refill of :meth:`Deal.of_refill` permutes). Otherwise, and for games that
        never refill, empty."""
        return []

    def census(self) -> dict[str, list[Card]]:
        """Where every physical card is now: location name -> cards, for invariant checks (tests,
        ``simulate``); never sent to clients. Empty before the first deal.

        The name says who may see the cards there: ``hand:N`` and ``finish:N`` seat N only;
        ``closed`` and ``out`` nobody; any other location (``open``, ``cut``, ``toss``,
        ``shown:N``, ...) everyone. A suffix ``@S,T`` adds seats that have seen the cards too
        (``hand:2@5``: seat 2's cards, which seat 5 saw in a sideshow)."""
        raise NotImplementedError(f"{type(self).__name__} has no census")

    # --- shared behaviour ---------------------------------------------------------------------

    def apply(self, seat: int, action: str, at: int, *, deal: Deal | None = None) -> list[Event]:
        """Apply ``action`` (notation, e.g. ``"discard 7H"``) by ``seat`` at time ``at`` (ms).
        The house deals with ``apply(HOUSE, "deal", at, deal=...)``."""
        if self.over:
            raise GameOver("the game is over")
        if seat != HOUSE and not 1 <= seat <= self.seats:
            raise UnknownSeat(f"there is no seat {seat} at this table")
        text = " ".join(action.split())
        if not text:
            raise BadAction("empty action")
        if (text == "deal") != (seat == HOUSE):
            raise BadAction("only the house deals, and it does nothing else")
        if text == "deal" and deal is None:
            raise BadAction("a deal needs its deck")
        if at < self.clock:
            raise BadAction(f"time {at} is before the last action ({self.clock})")
        events = self._apply(seat, text, deal, at)
        self.clock = at
        entry: JSON = {"seat": seat, "action": text, "at": at}
        if deal is not None:
            entry["deal"] = deal.to_json(*self.shoe())
        self.log.append(entry)
        return events

    def shoe(self) -> tuple[int, int]:
        """(decks, printed jokers per deck) of this game's shoe."""
        return (1, 0)

    def record(self) -> JSON:
        """The game record: config, every accepted action with its seat and time, and the result
        when there is one (docs/records.md)."""
        data: JSON = {"game": self.name, "config": self.config_json(), "actions": list(self.log)}
        if self.result is not None:
            data["result"] = self.result.to_json()
        return data


def notation(entry: Mapping[str, Any]) -> str:
    """One record entry as a line of notation: ``p2 discard 7H``; the house is ``p0``."""
    return f"p{entry['seat']} {entry['action']}"


def game_class(name: str) -> type[Game]:
    """The engine of the game called ``name`` (a record's ``game``), from the catalog of the
    installed games (:func:`rummyhall.catalog.get`); ValueError naming the known games if none."""
    # The one look-up from this layer into the catalog above it, made when called: a record
    # names its game, and the catalog is where names are found (docs/architecture.md).
    from rummyhall import catalog

    return catalog.get(name).engine


def replay(record: Mapping[str, Any], *, upto: int | None = None) -> Game:
    """Rebuild a game from its record by applying its actions in order (the first ``upto`` of
    them if given). Raises :class:`GameError` if the record holds an action the rules refuse."""
    game = game_class(str(record["game"])).create(record["config"])
    actions: Sequence[Mapping[str, Any]] = record["actions"]
    for entry in actions[:upto]:
        deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
        game.apply(int(entry["seat"]), str(entry["action"]), int(entry["at"]), deal=deal)
    return game


@dataclass(frozen=True, slots=True)
class RefillCheck:
    """One refill of the closed deck in a record, checked against the seeds of its deal
    (:func:`refill_checks`)."""

    action: int
    """The record entry, counted from 1."""
    number: int
    """Which refill of its deal it is (1, 2, ...), counted from the deal's own entry."""
    deal: Deal
    """The refill as recorded."""
    fair: FairDeal | None
    """The seeds of its deal (None: the deal was not seeded)."""
    computed: tuple[Card, ...] | None
    """The new closed deck the seeds give (None: nothing to compute from)."""
    problem: str | None
    """What is wrong, or why it cannot be checked; None when it matches."""

    @property
    def checkable(self) -> bool:
        """Whether the record holds what it takes to check it (a numbered refill of a seeded
        deal); records from before refills were derived from the seeds hold only the cards."""
        return self.computed is not None

    @property
    def ok(self) -> bool:
        return self.problem is None


def refill_checks(record: Mapping[str, Any], *, partial: bool = False) -> list[RefillCheck]:
    """Every refill of the closed deck in ``record``, each recomputed from the seeds of its deal
    (the latest new deal before it) and compared with the recorded order; the number it must
    have is one more than the refills its deal had before it. The record is replayed to tell
    refills from new deals (the house is awaited for ``reshuffle``), which also checks that each
    refill's ``from`` is the open pile under its top card.

    Raises :class:`GameError` for a record the rules refuse, or with ``partial`` stops there and
    returns the refills before it (a tampered refill usually makes a later draw impossible)."""
    game = game_class(str(record["game"])).create(record["config"])
    checks: list[RefillCheck] = []
    fair: FairDeal | None = None
    count = 0
    for index, entry in enumerate(record["actions"], 1):
        deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
        if deal is not None:
            waits = [a.kind for a in game.awaited() if a.seat == HOUSE]
            if waits[:1] == ["reshuffle"]:
                count += 1
                checks.append(_check_refill(index, count, deal, fair))
            else:
                fair, count = deal.fair, 0
        try:
            game.apply(int(entry["seat"]), str(entry["action"]), int(entry["at"]), deal=deal)
        except GameError:
            if not partial:
                raise
            break
    return checks


def _check_refill(index: int, number: int, deal: Deal, fair: FairDeal | None) -> RefillCheck:
    if deal.refill is None:
        why = "it is recorded as plain cards (a record from before refills came from the seeds)"
        return RefillCheck(index, number, deal, fair, None, f"cannot be checked: {why}")
    if fair is None:
        why = "its deal was not dealt from seeds"
        return RefillCheck(index, number, deal, fair, None, f"cannot be checked: {why}")
    computed = tuple(fair.refill(number, deal.source))
    problem = None
    if deal.refill != number:
        problem = f"it says it is refill {deal.refill}, but it is refill {number} of its deal"
    elif not same_cards(deal.deck, computed):
        problem = "its new closed deck is not the order the deal's seeds give these cards"
    return RefillCheck(index, number, deal, fair, computed, problem)
