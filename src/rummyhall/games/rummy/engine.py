"""The draw-and-discard rummy engine that 13-card Indian Rummy (both rule profiles, points and
101 / 201 pools) and 21-card Marriage Rummy share. A game is this engine with its own numbers
(a config answering :class:`~rummyhall.games.rummy.rules.RummyConfig`) and, where its scoring
differs, a subclass that overrides the hooks marked as such (Marriage's value cards).

The rules are docs/rules/; each game's numbers and config live in its ``rules.py``;
the record format and the notation of every action are in docs/records.md.

Actions (seat ``N`` is ``pN`` in notation, the house ``p0``)::

    deal                         the house: a new deal (or the toss and the first deal), or the
                                 refill of an empty closed deck
    draw open | draw closed      take the top card of the open pile or of the closed deck
    discard 7H                   end the turn by throwing a card on the open pile
    declare 7H                   put a card in the finish slot; then ``show`` the others
    declare 7H | AS 2S 3S | ...  the same, with the groups at once
    show AS 2S 3S | ...          confirm groups (the declarer, then every loser)
    group AS 2S 3S | ...         arrange one's own cards (not a move; any time during a deal)
    drop                         leave the deal, before drawing
    timeout                      applied by the server for an awaited seat at its deadline
    rejoin                       buy back into a pool between deals

Every action is validated completely before anything changes; a refused action raises a
:class:`~rummyhall.games.protocol.GameError` and leaves the game exactly as it was.

Where the rules say nothing, the engine decides so:

* the toss reads its cards from the top of the first deal's deck and the hands come from the rest
  (docs/records.md); every card the toss read is out of play for that deal;
* an action later than the seat's deadline is refused (only ``timeout`` remains); a refill of the
  closed deck restarts the waiting player's turn clock;
* a player's arrangement follows their hand (a drawn card joins as a group of its own, a thrown
  card leaves its group), so the last arrangement always covers the hand at a show timeout;
* a loser whose shown groups leave nothing to count (every loose card wild) scores the 2 points of
  a complete hand, never 0;
* a confirmed wrong declaration is shown to everyone (groups and finish card); one that timed out
  shows nothing. Dropped and removed players' cards are never shown;
* a loser's show is private to them until the deal ends; then every show is public.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, ClassVar, Final, NamedTuple

from rummyhall.cards import (
    ACE,
    JOKER_CODE,
    Card,
    CardError,
    format_cards,
    format_groups,
    parse,
    parse_groups,
    rank_text,
    shoe,
    sort_key,
    sorted_texts,
)
from rummyhall.games.protocol import (
    HOUSE,
    JSON,
    Awaited,
    BadAction,
    Deal,
    Event,
    Game,
    IllegalAction,
    InvalidCards,
    NotYourTurn,
    Posting,
    Result,
    TooEarly,
    TooLate,
    UnknownSeat,
    View,
    as_dealt,
    refilled,
)
from rummyhall.games.protocol_views import AwaitedView
from rummyhall.games.rummy.events import (
    RUMMY_EVENTS,
    ClosedEmptyEvent,
    DealEvent,
    DeclarationEvent,
    DiscardEvent,
    DrawEvent,
    DrewEvent,
    DropEvent,
    GroupEvent,
    HandEvent,
    MissedEvent,
    RejoinEvent,
    RemovedEvent,
    ReshuffleEvent,
    SeatEvent,
    ShowEvent,
    ShowPhaseEvent,
    TimeoutEvent,
    TossEvent,
    TurnEvent,
)
from rummyhall.games.rummy.rules import RummyConfig
from rummyhall.games.rummy.views import DealSummary, RummySeatView, RummyView
from rummyhall.melds import Verdict, Wilds, check, get_profile
from rummyhall.native import mypyc_attr

# Phases of the game.
START: Final = "start"
"""Before the first deal: the house is awaited."""
PLAY: Final = "play"
"""A turn is being played."""
RESHUFFLE: Final = "reshuffle"
"""The closed deck is empty at the start of a turn: the house refills it from the open pile."""
DECLARE: Final = "declare"
"""A card is in the finish slot; the declarer must show their groups."""
SHOW: Final = "show"
"""After a valid declaration: the other players show their groups."""
BETWEEN: Final = "between"
"""Pool: between two deals (rejoins are possible); the house is awaited."""
OVER: Final = "over"

# A player's status in the current (or last) deal.
WAITING: Final = "waiting"
PLAYING: Final = "playing"
SHOWING: Final = "showing"
SHOWN: Final = "shown"
WON: Final = "won"
DROPPED: Final = "dropped"
WRONG: Final = "wrong"
REMOVED: Final = "removed"
ELIMINATED: Final = "eliminated"

_IN_DEAL: Final = frozenset({PLAYING, SHOWING})
_FIXED: Final = frozenset({WON, DROPPED, WRONG, REMOVED})
"""Statuses whose score is public as soon as it is known."""
_DEAL_PHASES: Final = frozenset({PLAY, RESHUFFLE, DECLARE, SHOW})
_AWAITED_KINDS: Final = {PLAY: "turn", DECLARE: "declare", SHOW: "show"}
"""What the seats the game waits for are awaited for, by phase."""


class _Clock(NamedTuple):
    """The time a seat has for what the game awaits from it: from ``start``, ``base`` ms plus the
    ``bank`` of extra time it had then. (Immutable values made at every turn and every card
    thrown: named tuples, built in C, where a frozen dataclass ran ``object.__setattr__`` for
    each field.)"""

    start: int
    base: int
    bank: int

    @property
    def deadline(self) -> int:
        return self.start + self.base + self.bank

    def bank_after(self, at: int) -> int:
        """The extra time left after acting at ``at``: the overrun past ``base`` comes off it."""
        return self.bank - min(self.bank, max(0, at - self.start - self.base))


class _Open(NamedTuple):
    """A card on the open pile and the turn in which it was thrown (None: the first open card)."""

    card: Card
    turn: int | None


_OPEN_TEXT: Final = attrgetter("card.text")
"""The name of an open pile's card, read in C: every view lists the pile."""
_OPEN_CARD: Final = attrgetter("card")


@dataclass(slots=True)
class _Player:
    seat: int
    status: str = WAITING
    hand: list[Card] = field(default_factory=list)
    arrangement: list[list[Card]] | None = None
    """The player's own grouping (``group``), kept in step with the hand; None: never grouped."""
    held: list[Card] = field(default_factory=list)
    """The cards a player who left the deal (a drop, a wrong declaration...) held then: out of
    play, but a game may settle on them (Marriage's value cards)."""
    score: int | None = None
    how: str | None = None
    """How the deal's score came about (``declared``, ``middle drop``, ``shown``...)."""
    deal_show: bool = False
    shown: list[list[Card]] | None = None
    finish: Card | None = None
    """The card this player put in the finish slot."""
    missed: int = 0
    bank: int = 0
    had_turn: bool = False
    drew: bool = False
    """Has drawn at least once this deal (a drop is then a middle drop)."""
    total: int = 0
    """Pool: running total."""


def _same(a: Card, b: Card) -> bool:
    """The same physical card (equality of cards ignores the copy)."""
    return a.code == b.code and a.copy == b.copy


def _without(cards: Sequence[Card], card: Card) -> list[Card]:
    code, copy = card.code, card.copy  # _same, inline: a hand is filtered at every discard
    return [c for c in cards if c.code != code or c.copy != copy]


def _text(groups: Sequence[Sequence[Card]]) -> list[list[str]]:
    return [[card.text for card in group] for group in groups]


def _one_card(text: str) -> Card:
    tokens = text.split()
    if len(tokens) != 1:
        raise BadAction(f"name exactly one card, not {text.strip()!r}")
    try:
        return parse(tokens[0])
    except CardError as exc:
        raise InvalidCards(str(exc)) from exc


def _groups(text: str) -> list[list[Card]]:
    try:
        groups = parse_groups(text)
    except CardError as exc:
        raise InvalidCards(str(exc)) from exc
    if not groups:
        raise BadAction("give the groups, separated by |")
    return groups


def _partition(groups: Sequence[Sequence[Card]], cards: Sequence[Card]) -> list[list[Card]]:
    """The physical cards of ``cards`` laid out as ``groups`` (cards named by value; duplicates
    take the held copies in the order of ``cards``). Raises InvalidCards unless the groups use
    every card exactly once."""
    copies: dict[int, list[int]] = {}  # card code -> positions in ``cards``, last one first
    for position in range(len(cards) - 1, -1, -1):
        copies.setdefault(cards[position].code, []).append(position)
    laid: list[list[Card]] = []
    for group in groups:
        row: list[Card] = []
        for wanted in group:
            free = copies.get(wanted.code)
            if not free:
                raise InvalidCards(f"{wanted} is not among your cards (or is used twice)")
            row.append(cards[free.pop()])
        laid.append(row)
    if any(copies.values()):
        left = sorted(position for free in copies.values() for position in free)
        raise InvalidCards(f"the groups leave out {format_cards(cards[i] for i in left)}")
    return laid


@mypyc_attr(allow_interpreted_subclasses=True)
class RummyGame(Game):
    """A draw-and-discard rummy game (see the module docstring). A game subclasses it with its
    ``name``, its config class (:meth:`create`) and its view type."""

    view_type: ClassVar[Any] = RummyView
    event_types: ClassVar[Mapping[str, Any]] = RUMMY_EVENTS

    def __init__(self, config: RummyConfig) -> None:
        super().__init__()
        self.config = config
        self.rules = self.config.rules
        self.common = self.config.common
        self.pool = self.config.pool
        self.players = {s: _Player(s) for s in range(1, self.config.seats + 1)}
        self._hand_places = {seat: f"hand:{seat}" for seat in self.players}
        """Census names of the seats' hands: a census is taken after every checked action."""
        self._hand_texts: dict[int, tuple[tuple[Card, ...], list[str]]] = {}
        """By seat: its hand's cards when its view last named them, and their sorted names."""
        self.phase: str = START
        order = self.config.order
        self.order: list[int] | None = None if order is None else list(order)
        """The match's turn order (from the toss or the config), first mover first."""
        self.toss: list[tuple[int, Card]] = []
        self.deal_no = 0
        self.deal_order: list[int] = []
        self.first: int | None = None
        self.cut: Card | None = None
        self.wilds: Wilds | None = None
        self.stock: deque[Card] = deque()
        """The closed deck, top card first; the cut card is its last card."""
        self.pile: list[_Open] = []
        """The open pile, top card last."""
        self.dead: list[Card] = []
        """Cards out of play this deal: toss cards, hands of dropped and removed players..."""
        self.turn: int | None = None
        self.turn_index = -1
        self.drawn: Card | None = None
        """The card the player to move drew this turn (None: not drawn yet)."""
        self.clocks: dict[int, _Clock] = {}
        """Every seat the game waits for, with its clock."""
        self.declarer: int | None = None
        self.winner: int | None = None
        self.history: list[DealSummary] = []
        self.pot = 0
        self._result: Result | None = None

    # --- protocol ----------------------------------------------------------------------------

    @property
    def seats(self) -> int:
        return self.config.seats

    def config_json(self) -> JSON:
        return self.config.to_json()

    def shoe(self) -> tuple[int, int]:
        return self.rules.shoe(self.config.seats)

    @property
    def result(self) -> Result | None:
        return self._result

    def awaited(self) -> list[Awaited]:
        return [Awaited(seat, kind, deadline) for seat, kind, deadline in self._waits()]

    def _waits(self) -> list[tuple[int, str, int | None]]:
        """:meth:`awaited` as plain tuples, for the views (built after every action)."""
        if self.phase in (START, BETWEEN):
            return [(HOUSE, "deal", None)]
        if self.phase == RESHUFFLE:
            return [(HOUSE, "reshuffle", None)]
        kind = _AWAITED_KINDS.get(self.phase)
        if kind is None:
            return []
        return [(seat, kind, clock.deadline) for seat, clock in self.clocks.items()]

    def legal(self, seat: int) -> list[str]:
        self._check_seat(seat)
        if self.over:
            return []
        if seat == HOUSE:
            return ["deal"] if self.phase in (START, BETWEEN, RESHUFFLE) else []
        player = self.players[seat]
        actions: list[str] = []
        if self.phase == PLAY and seat == self.turn:
            if self.drawn is None:
                if self._open_allowed():
                    actions.append("draw open")
                actions += ["draw closed", "drop"]
            else:
                distinct = sorted({str(card): card for card in player.hand}.values(), key=sort_key)
                actions += [f"discard {card}" for card in distinct]
                actions += [f"declare {card}" for card in distinct]
                actions.append("declare <card> | <groups>")
        if seat in self.clocks and self.phase in (DECLARE, SHOW):
            actions.append("show <groups>")
        if player.status in _IN_DEAL and self.phase in _DEAL_PHASES:
            actions.append("group <groups>")
        if self._can_rejoin(player):
            actions.append("rejoin")
        return actions

    def leave_move(self, seat: int) -> str | None:
        """A leaving player drops at their turn (a discard first if they have drawn: a drop is
        only allowed before drawing), and shows their last arrangement (else every card on its
        own, as their timer would) when a declaration asks for it, instead of making the table
        wait for their timers. A declarer's own declare phase runs on its timer."""
        if seat not in self.clocks or self.over:
            return None
        if self.phase == PLAY:
            return "drop" if self.drawn is None else f"discard {self.drawn}"
        if self.phase == SHOW:
            # What their show timer would score, without making the others wait for it.
            player = self.players[seat]
            groups = player.arrangement or [[card] for card in player.hand]
            return f"show {format_groups(groups)}"
        return None

    def _apply(self, seat: int, action: str, deal: Deal | None, at: int) -> list[Event]:
        if seat == HOUSE:
            assert deal is not None  # the protocol checks it
            events = self._house(deal, at)
        else:
            verb, _, rest = action.partition(" ")
            handler = self._HANDLERS.get(verb)
            if handler is None:
                raise BadAction(f"unknown action {verb!r}; see legal() for what you may do")
            events = handler(self, seat, rest, at)
        return events

    # --- the house -------------------------------------------------------------------------

    def _house(self, deal: Deal, at: int) -> list[Event]:
        if self.phase in (START, BETWEEN):
            return self._new_deal(deal, at)
        if self.phase == RESHUFFLE:
            return self._reshuffle(deal, at)
        raise IllegalAction("the house has nothing to deal now")

    def _new_deal(self, deal: Deal, at: int) -> list[Event]:
        decks, jokers = self.shoe()
        deck = as_dealt(deal.deck, shoe(decks, jokers))
        if deck is None:
            raise InvalidCards(
                f"a deal must hold exactly the shoe: {decks} decks with {jokers} printed "
                "joker(s) each, every card once"
            )
        active = [s for s, p in self.players.items() if p.status != ELIMINATED]
        events: list[Event] = []
        toss: list[tuple[int, Card]] = []
        if self.order is None:
            order, toss, used = self._toss(deck, active)
            rest = deck[used:]
        else:
            order, rest = self.order, deck
        if self.first is None:
            first = order[0]
        else:  # the first move passes on, skipping eliminated players
            last = order.index(self.first)
            first = next(s for s in order[last + 1 :] + order[: last + 1] if s in active)
        start = order.index(first)
        deal_order = [s for s in order[start:] + order[:start] if s in active]
        count = len(deal_order)
        size = self.common.hand_size
        # --- validated; from here on the game changes ---
        if toss:
            self.toss = toss
            tossed = TossEvent(cards=[[s, str(c)] for s, c in toss], order=list(order))
            events.append(Event("toss", tossed))
        self.order = list(order)
        self.dead = deck[: len(deck) - len(rest)]
        self.deal_no += 1
        self.first = first
        self.deal_order = deal_order
        for seat, player in self.players.items():
            status = ELIMINATED if player.status == ELIMINATED else PLAYING
            self.players[seat] = _Player(
                seat, status=status, bank=self.config.extra_ms, total=player.total
            )
        for index in range(size * count):
            self.players[deal_order[index % count]].hand.append(rest[index])
        cut, first_open = rest[size * count], rest[size * count + 1]
        self.cut = cut
        self.wilds = Wilds.of(cut, get_profile(self.rules.melds))
        self.pile = [_Open(first_open, None)]
        self.stock = deque(rest[size * count + 2 :])
        self.stock.append(cut)
        self.turn = None
        self.turn_index = -1
        self.drawn = None
        self.clocks = {}
        self.declarer = None
        self.winner = None
        postings: tuple[Posting, ...] = ()
        if self.pool is not None and self.deal_no == 1 and self.config.entry_fee:
            fee = self.config.entry_fee
            postings = (
                *(Posting(f"seat:{s}", -fee) for s in deal_order),
                Posting("pot", fee * count),
            )
            self.pot += fee * count
        dealt = DealEvent(
            deal=self.deal_no,
            order=list(deal_order),
            first=first,
            cut=str(cut),
            wild_rank=self._wild_rank(),
            open=str(first_open),
            closed=len(self.stock),
        )
        events.append(Event("deal", dealt, postings=postings))
        for seat in deal_order:
            hand = sorted_texts(self.players[seat].hand)
            events.append(Event("hand", HandEvent(cards=hand), to=frozenset({seat})))
        self._start_turn(first, at, events)
        return events

    def _toss(
        self, deck: Sequence[Card], seats: Sequence[int]
    ) -> tuple[list[int], list[tuple[int, Card]], int]:
        """The toss from the top of ``deck``: (turn order, cards drawn, cards used).

        One natural card per seat in seat order (printed jokers are passed over); the highest
        card moves first. Tied players draw again, among themselves, from the following cards.
        Classic orders everyone this way; vengala only settles who moves first, then play goes
        round in seat order. The toss never uses so many cards that the deal could run short;
        should ties still stand then, the lower seat goes first."""
        limit = len(deck) - (self.common.hand_size + 1) * len(seats) - 2
        drawn: list[tuple[int, Card]] = []
        ranked, position = self._toss_rank(deck, limit, sorted(seats), 0, drawn)
        if self.rules.toss_orders_all:
            order = ranked
        else:
            seat_order = sorted(seats)
            start = seat_order.index(ranked[0])
            order = seat_order[start:] + seat_order[:start]
        return order, drawn, position

    def _toss_rank(
        self,
        deck: Sequence[Card],
        limit: int,
        players: list[int],
        position: int,
        drawn: list[tuple[int, Card]],
    ) -> tuple[list[int], int]:
        """:meth:`_toss` for ``players``, drawing from ``deck[position]`` on (at most up to
        ``limit``, adding each card drawn to ``drawn``): their order and the next position. A
        method, not a closure calling itself: that closure made a reference cycle holding the
        whole game, freed only by the cycle collector."""
        everyone = self.rules.toss_orders_all
        ace_high = self.common.toss_ace_high
        cards: dict[int, int] = {}
        for seat in players:
            while position < limit and deck[position].is_joker:
                position += 1
            if position >= limit:
                return sorted(players), position
            card = deck[position]
            cards[seat] = card.rank + 13 if ace_high and card.rank == ACE else card.rank
            drawn.append((seat, card))
            position += 1
        ordered: list[int] = []
        for value in sorted(set(cards.values()), reverse=True):
            tied = [s for s in players if cards[s] == value]
            if len(tied) > 1 and (everyone or not ordered):
                tied, position = self._toss_rank(deck, limit, tied, position, drawn)
            ordered += tied
        return ordered, position

    def refill_source(self) -> list[Card]:
        if self.phase != RESHUFFLE:
            return []
        return [entry.card for entry in self.pile[:-1]]

    def _reshuffle(self, deal: Deal, at: int) -> list[Event]:
        stock = refilled(deal, [entry.card for entry in self.pile[:-1]], "open pile")
        assert self.turn is not None
        self.stock = deque(stock)
        self.pile = self.pile[-1:]
        events = [Event("reshuffle", ReshuffleEvent(closed=len(self.stock)))]
        self._open_turn(self.turn, at, events)
        return events

    # --- players' actions -------------------------------------------------------------------

    def _draw(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest not in ("open", "closed"):
            raise BadAction("draw open or draw closed")
        player = self._mover(seat, at)
        if self.drawn is not None:
            raise IllegalAction("you have already drawn this turn; discard or declare")
        if rest == "open" and not self.pile:
            raise IllegalAction("the open pile is empty; draw from the closed deck")
        if rest == "open" and not self._open_allowed():
            raise IllegalAction(f"you may not take the {self.pile[-1].card} from the open pile")
        # --- validated ---
        card = self.pile.pop().card if rest == "open" else self.stock.popleft()
        self._charge(seat, at)
        player.hand.append(card)
        if player.arrangement is not None:
            player.arrangement.append([card])
        player.drew = True
        self.drawn = card
        if rest == "open":
            taken: DrawEvent = {"seat": seat, "from": "open", "card": str(card)}
            return [Event("draw", taken)]
        drawn: DrawEvent = {"seat": seat, "from": "closed", "closed": len(self.stock)}
        return [
            Event("draw", drawn),
            Event("drew", DrewEvent(card=str(card)), to=frozenset({seat})),
        ]

    def _discard(self, seat: int, rest: str, at: int) -> list[Event]:
        player = self._mover(seat, at)
        if self.drawn is None:
            raise IllegalAction("draw a card first")
        card = self._held(player, _one_card(rest))
        # --- validated ---
        self._charge(seat, at)
        self._lose_card(player, card)
        self.pile.append(_Open(card, self.turn_index))
        player.missed = 0
        events = [Event("discard", DiscardEvent(seat=seat, card=str(card)))]
        self._next_turn(at, events)
        return events

    def _declare(self, seat: int, rest: str, at: int) -> list[Event]:
        player = self._mover(seat, at)
        if self.drawn is None:
            raise IllegalAction("draw a card first")
        card_text, bar, groups_text = rest.partition("|")
        card = self._held(player, _one_card(card_text))
        groups = _partition(_groups(groups_text), _without(player.hand, card)) if bar else None
        # --- validated ---
        self._charge(seat, at)
        self._lose_card(player, card)
        player.finish = card
        player.missed = 0
        self.declarer = seat
        events = [Event("declare", SeatEvent(seat=seat))]
        if groups is None:
            self.phase = DECLARE
            self.clocks = {seat: _Clock(at, self.config.declare_ms, player.bank)}
        else:
            self._judge(player, groups, at, events)
        return events

    def _drop(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("drop takes nothing after it")
        player = self._mover(seat, at)
        if self.drawn is not None:
            raise IllegalAction("you can only drop before drawing; finish this turn first")
        # --- validated ---
        self._charge(seat, at)
        drops = self.config.drops
        how = "middle drop" if player.drew else "first drop"
        score = drops.middle if player.drew else drops.first
        self._leave(player, DROPPED, score, how)
        events = [Event("drop", DropEvent(seat=seat, score=score, how=how))]
        self._next_turn(at, events)
        return events

    def _group(self, seat: int, rest: str, at: int) -> list[Event]:
        player = self.players[seat]
        if player.status not in _IN_DEAL or self.phase not in _DEAL_PHASES:
            raise IllegalAction("you have no cards in play to arrange")
        groups = _partition(_groups(rest), player.hand)
        # --- validated ---
        player.arrangement = groups
        return [Event("group", GroupEvent(groups=_text(groups)), to=frozenset({seat}))]

    def _show(self, seat: int, rest: str, at: int) -> list[Event]:
        player = self.players[seat]
        if seat not in self.clocks or self.phase not in (DECLARE, SHOW):
            if self.phase in (DECLARE, SHOW) and player.status in (SHOWN, WON):
                raise IllegalAction("you have already shown your cards")
            if self.phase in (DECLARE, SHOW) and player.status in _IN_DEAL:
                raise NotYourTurn(f"seat {self.declarer} must show its declaration first")
            raise IllegalAction("there is nothing to show now")
        self._in_time(seat, at)
        groups = _partition(_groups(rest), player.hand)
        # --- validated ---
        self._charge(seat, at)
        del self.clocks[seat]
        events: list[Event] = []
        if self.phase == DECLARE:
            self._judge(player, groups, at, events)
        else:
            self._score_show(player, groups, "shown", at, events)
        return events

    def _timeout(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("timeout takes nothing after it")
        clock = self.clocks.get(seat)
        if clock is None:
            raise NotYourTurn(f"the game is not waiting for seat {seat}")
        if at < clock.deadline:
            raise TooEarly(f"seat {seat} has until {clock.deadline}")
        # --- validated ---
        player = self.players[seat]
        player.bank = 0
        del self.clocks[seat]
        events: list[Event] = []
        if self.phase == DECLARE:
            events.append(Event("timeout", TimeoutEvent(seat=seat, kind="declare")))
            self._wrong(player, None, "declare timeout", at, events)
        elif self.phase == SHOW:
            events.append(Event("timeout", TimeoutEvent(seat=seat, kind="show")))
            # The arrangement follows every change of the hand, so it always holds all 13.
            if player.arrangement is not None:
                self._score_show(player, player.arrangement, "arrangement", at, events)
            else:
                singles = [[card] for card in player.hand]
                self._score_show(player, singles, "all cards", at, events)
        else:
            self._missed_turn(player, at, events)
        return events

    def _rejoin(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("rejoin takes nothing after it")
        player = self.players[seat]
        if self.pool is None:
            raise IllegalAction("only pools can be rejoined")
        if player.status != ELIMINATED:
            raise IllegalAction("only an eliminated player can rejoin")
        if self.phase != BETWEEN:
            raise IllegalAction("rejoin between deals")
        if not self._rejoin_open():
            raise IllegalAction(
                f"too late to rejoin: a remaining player is above {self.pool.rejoin_limit}"
            )
        # --- validated ---
        fee = self.config.entry_fee
        player.total = self._highest_total() + 1
        player.status = WAITING
        self.pot += fee
        postings = (Posting(f"seat:{seat}", -fee), Posting("pot", fee)) if fee else ()
        return [Event("rejoin", RejoinEvent(seat=seat, total=player.total), postings=postings)]

    _HANDLERS: ClassVar[dict[str, Callable[[RummyGame, int, str, int], list[Event]]]] = {}
    """The method that applies each verb (filled in below the class: compiled, the class body
    has no names of its methods to put in it)."""

    # --- checks ----------------------------------------------------------------------------

    def _check_seat(self, seat: int | None) -> None:
        if seat is not None and seat != HOUSE and seat not in self.players:
            raise UnknownSeat(f"there is no seat {seat} at this table")

    def _mover(self, seat: int, at: int) -> _Player:
        """The player to move, if ``seat`` is that player and still in time."""
        if self.phase == PLAY and seat == self.turn:
            self._in_time(seat, at)
            return self.players[seat]
        if self.phase == PLAY:
            raise NotYourTurn(f"it is seat {self.turn}'s turn")
        if self.phase == RESHUFFLE:
            if seat == self.turn:
                raise IllegalAction("the closed deck is being refilled; wait for the house")
            raise NotYourTurn(f"it is seat {self.turn}'s turn")
        if self.phase in (DECLARE, SHOW):
            raise IllegalAction("no turns are played while declarations are shown")
        raise IllegalAction("no deal is in progress")

    def _in_time(self, seat: int, at: int) -> None:
        deadline = self.clocks[seat].deadline
        if at > deadline:
            raise TooLate(f"time ran out at {deadline}; only the timeout remains")

    def _held(self, player: _Player, card: Card) -> Card:
        """The physical copy of ``card`` the player gives up: from the smallest group of their
        arrangement, so that a copy inside a meld stays where it is."""
        copies = [held for held in player.hand if held.code == card.code]
        if not copies:
            raise InvalidCards(f"you do not hold {card}")
        if len(copies) == 1 or not player.arrangement:
            return copies[0]
        sizes: dict[tuple[int, int], int] = {}  # a physical card -> the size of its first group
        for group in player.arrangement:
            for held in group:
                sizes.setdefault((held.code, held.copy), len(group))
        return min(copies, key=lambda held: sizes.get((held.code, held.copy), 0))

    def _open_allowed(self) -> bool:
        if not self.pile:
            return False
        top = self.pile[-1]
        if self.wilds is None or top.card.code not in self.wilds.codes:
            return True
        if top.turn is None:
            return not self.rules.first_open_wild_first_mover_only or self.turn_index == 0
        return not (self.rules.discarded_wild_blocked_for_next and top.turn == self.turn_index - 1)

    def _rejoin_open(self) -> bool:
        """Between pool deals, while no remaining player is above the rejoin limit."""
        return (
            self.pool is not None
            and self.phase == BETWEEN
            and self._highest_total() <= self.pool.rejoin_limit
        )

    def _can_rejoin(self, player: _Player) -> bool:
        return player.status == ELIMINATED and self._rejoin_open()

    def _highest_total(self) -> int:
        return max(p.total for p in self.players.values() if p.status != ELIMINATED)

    def _wild_rank(self) -> str | None:
        if self.wilds is None:
            return None
        return rank_text(self.wilds.wild_rank)

    # --- changes (called only after validation) ---------------------------------------------

    def _charge(self, seat: int, at: int) -> None:
        self.players[seat].bank = self.clocks[seat].bank_after(at)

    def _lose_card(self, player: _Player, card: Card) -> None:
        player.hand = _without(player.hand, card)
        if player.arrangement is not None:
            kept = [_without(group, card) for group in player.arrangement]
            player.arrangement = [group for group in kept if group]

    def _leave(self, player: _Player, status: str, score: int, how: str) -> None:
        """The player leaves the deal with a fixed score; their cards leave play unseen."""
        self.dead += player.hand
        player.held = player.hand
        player.hand = []
        player.arrangement = None
        player.status = status
        player.score = score
        player.how = how

    def _start_turn(self, seat: int, at: int, events: list[Event]) -> None:
        self.turn = seat
        self.turn_index += 1
        self.drawn = None
        self.players[seat].had_turn = True
        if self.stock:
            self._open_turn(seat, at, events)
        else:
            self.phase = RESHUFFLE
            self.clocks = {}
            events.append(Event("closed_empty", ClosedEmptyEvent(open=len(self.pile))))

    def _open_turn(self, seat: int, at: int, events: list[Event]) -> None:
        self.phase = PLAY
        clock = _Clock(at, self.config.turn_ms, self.players[seat].bank)
        self.clocks = {seat: clock}
        events.append(Event("turn", TurnEvent(seat=seat, deadline=clock.deadline)))

    def _next_turn(self, at: int, events: list[Event]) -> None:
        """The turn passes to the next player still in the deal, or the deal ends."""
        playing = [s for s in self.deal_order if self.players[s].status == PLAYING]
        if len(playing) == 1:
            self._end_deal(playing[0], at, events)
            return
        assert self.turn is not None
        index = self.deal_order.index(self.turn)
        count = len(self.deal_order)
        following = (self.deal_order[(index + k) % count] for k in range(1, count + 1))
        still = set(playing)
        self._start_turn(next(s for s in following if s in still), at, events)

    def _missed_turn(self, player: _Player, at: int, events: list[Event]) -> None:
        player.missed += 1
        thrown = self.drawn
        if thrown is not None:
            self._lose_card(player, thrown)
            self.pile.append(_Open(thrown, self.turn_index))
        data = MissedEvent(seat=player.seat, missed=player.missed)
        if thrown is not None:
            data["discarded"] = str(thrown)
        events.append(Event("missed", data))
        if player.missed >= self.common.missed_turn_limit:
            score = self.config.drops.middle
            self._leave(player, REMOVED, score, "missed turns")
            events.append(Event("removed", RemovedEvent(seat=player.seat, score=score)))
        self._next_turn(at, events)

    def _judge(
        self, player: _Player, groups: list[list[Card]], at: int, events: list[Event]
    ) -> None:
        """Judge a declaration: a valid one wins the deal and opens the show phase."""
        assert self.cut is not None
        verdict = check(groups, joker=self.cut, profile=self.rules.melds)
        if not verdict.declarable:
            self._wrong(player, groups, verdict.reason or "not a valid declaration", at, events)
            return
        player.status = WON
        player.score = 0
        player.how = "declared"
        player.shown = groups
        self.winner = player.seat
        declared = DeclarationEvent(
            seat=player.seat, valid=True, finish=str(player.finish), groups=_text(groups)
        )
        events.append(Event("declaration", declared))
        showing = [s for s in self.deal_order if self.players[s].status == PLAYING]
        self.phase = SHOW
        self.turn = None
        self.clocks = {}
        for seat in showing:
            self.players[seat].status = SHOWING
            self.clocks[seat] = _Clock(at, self.config.declare_ms, self.players[seat].bank)
        events.append(
            Event(
                "show_phase",
                ShowPhaseEvent(deadlines={str(s): c.deadline for s, c in self.clocks.items()}),
            )
        )

    def _wrong(
        self,
        player: _Player,
        groups: list[list[Card]] | None,
        reason: str,
        at: int,
        events: list[Event],
    ) -> None:
        """A wrong declaration (or none in time): 80 points, out of the deal; play goes on.
        Groups that were confirmed are public, like the finish card; otherwise nothing is."""
        finish = player.finish
        assert finish is not None
        data = DeclarationEvent(seat=player.seat, valid=False, reason=reason)
        if groups is not None:
            player.shown = groups
            data["finish"] = str(finish)
            data["groups"] = _text(groups)
        else:
            player.finish = None
        self.dead.append(finish)
        data["score"] = score = self.common.wrong_declaration
        self._leave(player, WRONG, score, "wrong declaration")
        events.append(Event("declaration", data))
        self.declarer = None
        self.phase = PLAY
        self._next_turn(at, events)

    def _score_show(
        self, player: _Player, groups: list[list[Card]], how: str, at: int, events: list[Event]
    ) -> None:
        assert self.cut is not None
        verdict = check(groups, joker=self.cut, profile=self.rules.melds)
        # A complete hand (or one where nothing is left to count) scores the fixed 2 points.
        complete = self._complete(verdict) or verdict.score == 0
        score = self.common.met_objective if complete else verdict.score
        score = min(score, self.common.cap)
        player.deal_show = not player.had_turn
        if player.deal_show:
            halved = score // self.common.deal_show_divisor
            score = max(self.common.deal_show_min, min(self.common.deal_show_max, halved))
        player.status = SHOWN
        player.shown = groups
        player.score = score
        player.how = how
        events.append(Event("show", ShowEvent(seat=player.seat, how=how)))
        if not self.clocks:
            assert self.winner is not None
            self._end_deal(self.winner, at, events)

    def _complete(self, verdict: Verdict) -> bool:
        """Whether a loser's shown groups make a complete hand, which scores the fixed points of
        ``met_objective`` instead of its cards: a valid declaration. A game may say otherwise
        (Marriage: its 2-point shapes)."""
        return verdict.declarable

    def _summarize(self, summary: DealSummary) -> None:
        """Add a game's own figures to a deal's summary before it is published (the
        ``deal_end`` event, ``history``). Nothing by default."""

    def _end_deal(self, winner: int, at: int, events: list[Event]) -> None:
        champion = self.players[winner]
        if champion.status != WON:
            champion.status, champion.score, champion.how = WON, 0, "last player left"
        self.winner = winner
        self.turn = None
        self.drawn = None
        self.clocks = {}
        self.declarer = None
        seats = self.deal_order
        scores = {s: self.players[s].score or 0 for s in seats}
        summary: DealSummary = {
            "deal": self.deal_no,
            "first": self.first,
            "winner": winner,
            "scores": {str(s): scores[s] for s in seats},
            "how": {str(s): self.players[s].how for s in seats},
            "deal_show": [s for s in seats if self.players[s].deal_show],
            "shown": {
                str(s): _text(shown) for s in seats if (shown := self.players[s].shown) is not None
            },
        }
        if self.pool is None:
            self._summarize(summary)
            self.history.append(summary)
            events.append(Event("deal_end", summary))
            self._finish_points(winner, scores, events)
            return
        eliminated: list[int] = []
        for seat in seats:
            player = self.players[seat]
            player.total += scores[seat]
            if player.total >= self.pool.elimination:
                player.status = ELIMINATED
                eliminated.append(seat)
        summary["totals"] = {str(s): p.total for s, p in self.players.items()}
        summary["eliminated"] = eliminated
        self.history.append(summary)
        events.append(Event("deal_end", summary))
        left = [s for s, p in self.players.items() if p.status != ELIMINATED]
        if len(left) == 1:
            self._finish_pool(left[0], events)
        else:
            self.phase = BETWEEN

    def _finish_points(self, winner: int, scores: Mapping[int, int], events: list[Event]) -> None:
        """Settle a points deal: every loser pays the winner their score in points, at the
        table's point value. A game may settle otherwise (Marriage: value cards, caps)."""
        value = self.config.point_value
        postings = [Posting(f"seat:{s}", -pts * value) for s, pts in scores.items() if pts]
        won = sum(pts * value for pts in scores.values())
        if won:
            postings.append(Posting(f"seat:{winner}", won))
        self._over(
            Result(
                points={s: scores.get(s, 0) for s in self.players},
                winners=(winner,),
                postings=tuple(postings),
                detail={"deals": list(self.history)},
            ),
            events,
        )

    def _finish_pool(self, winner: int, events: list[Event]) -> None:
        rake = self.pot * self.config.rake_percent // 100
        postings = [Posting("pot", -self.pot), Posting(f"seat:{winner}", self.pot - rake)]
        if rake:
            postings.append(Posting("house", rake))
        self._over(
            Result(
                points={s: p.total for s, p in self.players.items()},
                winners=(winner,),
                postings=tuple(p for p in postings if p.amount),
                detail={"deals": list(self.history), "pot": self.pot, "rake": rake},
            ),
            events,
        )

    def _over(self, result: Result, events: list[Event]) -> None:
        self._result = result
        self.phase = OVER
        events.append(Event("game_over", result.to_json()))

    # --- views -------------------------------------------------------------------------------

    def census(self) -> dict[str, list[Card]]:
        """Every physical card of the deal by location (see :meth:`Game.census`): ``closed``,
        ``cut`` (while it lies under the closed deck), ``open``, ``hand:N``, ``finish:N`` (face
        down), ``shown:N`` (face up: a declaration that was judged, or any show once the deal has
        ended), ``toss`` and ``out`` (dropped hands, jokers the toss passed over, ...)."""
        if self.phase == START:
            return {}
        ended = self.phase in (BETWEEN, OVER)
        stock = list(self.stock)
        places: dict[str, list[Card]] = {}
        if stock and self.cut is not None and _same(stock[-1], self.cut):
            places["cut"] = [stock.pop()]
        places["closed"] = stock
        places["open"] = list(map(_OPEN_CARD, self.pile))
        face_up: set[tuple[int, int]] = set()
        for seat, player in self.players.items():
            held = player.hand
            if player.shown is not None and (ended or player.status in _FIXED):
                up = [card for group in player.shown for card in group]
                if player.finish is not None:
                    up.append(player.finish)
                places[f"shown:{seat}"] = up
                keys = {(card.code, card.copy) for card in up}
                face_up |= keys
                held = [card for card in held if (card.code, card.copy) not in keys]
            elif player.finish is not None:
                places[f"finish:{seat}"] = [player.finish]
            if held:
                places[self._hand_places[seat]] = list(held)
        dead = self.dead
        if face_up:
            dead = [card for card in dead if (card.code, card.copy) not in face_up]
        if self.deal_no == 1 and self.toss:
            # The toss's cards apart from the rest, in one pass (a physical key per card).
            copies = JOKER_CODE + 1
            tossed = {card.code + copies * card.copy for _, card in self.toss}
            toss: list[Card] = []
            out: list[Card] = []
            for card in dead:
                (toss if card.code + copies * card.copy in tossed else out).append(card)
            places["toss"] = toss
            places["out"] = out
        else:
            places["toss"] = []
            places["out"] = list(dead)
        return places

    def view(self, seat: int | None) -> RummyView:
        self._check_seat(seat)
        return self._viewer_view(self._public_view(), seat)

    def views(self, seats: Sequence[int | None]) -> list[View]:
        # Everything but the viewer's own cards (and its own entry among the seats) is the same
        # for every viewer: built once and shared between the views, as Patti's are (views are
        # read, never changed): a room sends each change to every seat, a checked simulation
        # checks them all.
        for seat in seats:
            self._check_seat(seat)
        public = self._public_view()
        return [self._viewer_view(public, seat) for seat in seats]

    def _viewer_view(self, public: RummyView, seat: int | None) -> RummyView:
        """``seat``'s view: the spectators' one, copied, with what only that seat sees."""
        data = public.copy()
        data["viewer"] = seat
        if seat is not None and seat != HOUSE:
            player = self.players[seat]
            if not (player.status in _FIXED or self.phase in (BETWEEN, OVER)) and (
                player.score is not None or player.how is not None or player.shown is not None
            ):
                # Its own score and shown groups, which only it may see yet.
                data["seats"] = self._seats_view(False, seat)
            data["hand"] = self._sorted_hand(player)
            laid = player.arrangement
            data["arrangement"] = None if laid is None else _text(laid)
            # What dropping would cost now: a first drop before the player's first draw.
            drops = self.config.drops
            data["drop_cost"] = drops.middle if player.drew else drops.first
            if player.finish is not None:
                data["finish"] = str(player.finish)
        return data

    def _sorted_hand(self, player: _Player) -> list[str]:
        """The names of ``player``'s cards in display order, sorted again only when its hand has
        changed: an action changes one hand at most, and a checked simulation or a room builds
        every seat's view after each. Unchanged means the very same card objects in the same
        order, which the comparison of two tuples tells without a call per card."""
        held = tuple(player.hand)
        known = self._hand_texts.get(player.seat)
        if known is None or known[0] != held:
            known = self._hand_texts[player.seat] = (held, sorted_texts(held))
        return known[1]

    def _public_view(self) -> RummyView:
        """The view of a spectator, which every seat's view copies (:meth:`view`)."""
        ended = self.phase in (BETWEEN, OVER)
        mover = self.turn if self.phase == PLAY else None
        data: RummyView = {
            "game": self.name,
            "profile": self.config.profile,
            "mode": self.config.mode,
            "viewer": None,
            "phase": self.phase,
            "deal": self.deal_no,
            "order": list(self.deal_order),
            "first": self.first,
            "dealer": self.deal_order[-1] if self.deal_order else None,
            "toss": [{"seat": s, "card": c.text} for s, c in self.toss],
            "cut": None if self.cut is None else str(self.cut),
            "wild_rank": self._wild_rank(),
            "open": list(map(_OPEN_TEXT, self.pile)),
            "closed": len(self.stock),
            "turn": self.turn,
            "drawn": self.drawn is not None,
            "may_take_open": mover is not None and self.drawn is None and self._open_allowed(),
            "declarer": self.declarer,
            "winner": self.winner,
            "awaited": self._awaited_view(),
            "seats": self._seats_view(ended),
            "history": list(self.history),
            "result": None if self._result is None else self._result.to_json(),
        }
        if self.pool is not None:
            data["pool"] = {
                "elimination": self.pool.elimination,
                "rejoin_limit": self.pool.rejoin_limit,
                "entry_fee": self.config.entry_fee,
                "pot": self.pot,
                "rejoin_open": self._rejoin_open(),
            }
        return data

    def _awaited_view(self) -> list[AwaitedView]:
        """The view's ``awaited`` (:meth:`awaited` as JSON), built directly: every view has it."""
        phase = self.phase
        if phase in (START, BETWEEN):
            return [{"seat": HOUSE, "kind": "deal", "deadline": None}]
        if phase == RESHUFFLE:
            return [{"seat": HOUSE, "kind": "reshuffle", "deadline": None}]
        kind = _AWAITED_KINDS.get(phase)
        if kind is None:
            return []
        return [
            {"seat": seat, "kind": kind, "deadline": clock.deadline}
            for seat, clock in self.clocks.items()
        ]

    def _seats_view(self, ended: bool, viewer: int | None = None) -> list[RummySeatView]:
        """Every seat as ``viewer`` sees it: its score, how it came about and its shown groups
        are public once the deal ended or the seat left it, and always to the seat itself."""
        pooled = self.pool is not None
        entries: list[RummySeatView] = []
        for player in self.players.values():
            status = player.status
            public = ended or status in _FIXED or player.seat == viewer
            shown = player.shown
            entry: RummySeatView = {
                "seat": player.seat,
                "status": status,
                "cards": len(player.hand),
                "missed": player.missed,
                "bank": player.bank,
                "score": player.score if public else None,
                "how": player.how if public else None,
                "shown": None if shown is None or not public else _text(shown),
            }
            if player.finish is not None and status in (WON, WRONG):
                entry["finish"] = str(player.finish)
            if pooled:
                entry["total"] = player.total
            entries.append(entry)
        return entries


RummyGame._HANDLERS.update(
    {
        "draw": RummyGame._draw,
        "discard": RummyGame._discard,
        "declare": RummyGame._declare,
        "drop": RummyGame._drop,
        "group": RummyGame._group,
        "show": RummyGame._show,
        "timeout": RummyGame._timeout,
        "rejoin": RummyGame._rejoin,
    }
)
