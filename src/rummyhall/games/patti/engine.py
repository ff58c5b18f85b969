"""Rummy Patti: the three-card betting game (docs/rules/rummy-patti.md), on the game protocol.

One engine object is one game: the house deals, everyone who can pays the boot, and the players
act in turn until one is left or the hands are shown. Consecutive games at a table are consecutive
engine objects: :meth:`Patti.next_config` (or :meth:`PattiConfig.following`) gives the next one's
config, with the stacks after this game and the first move passed one seat on.

Actions (seat ``N`` is ``pN`` in notation, the house ``p0``; the table is in docs/records.md)::

    deal                          the house: deals from the deck it carries and collects the boot
    chaal | chaal 2x              pay the chaal (or twice it) and keep the cards
    exchange open 7H [2x]         give up 7H, take the open centre card; 7H becomes the open card
    exchange closed 7H [2x]       the same with the closed centre card, unseen
    sideshow                      ask the previous player still in to compare hands (3+ still in)
    accept | refuse               the asked player's answer to a sideshow
    show                          with two players left: both hands are turned over
    pack                          leave the game
    timeout                       the server's, for the awaited seat at its deadline

Where the rules say nothing, the engine decides so (and the rules page says so too):

* the chaal is the last payment made (the boot before anyone paid); 2x doubles it, capped at the
  max chaal, and is no longer offered once the chaal is at the cap;
* a sideshow can only be asked of a player who has already played a turn in this game; while it
  waits for the answer, only the asked player can act (kind ``sideshow`` in :meth:`awaited`), and
  a timeout there refuses. The turn then passes to the player after the asker;
* a player who cannot pay the chaal when the turn comes to them is packed then and there;
* the payment that reaches the pot limit is made in full, its move completed (an exchange swaps
  its cards), and then every hand still in is shown; a sideshow paid that way is never asked;
* two timeouts in a row pack the player; any move of their own on a turn in between resets it;
* a player who cannot pay the boot sits the game out; the dealer is the seat just before the first
  player in turn order, and a split pot's odd chips go one each to the tied players in turn order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final

from rummyhall.cards import Card, CardError, parse, shoe
from rummyhall.games.patti.events import (
    PATTI_EVENTS,
    ChaalEvent,
    DealEvent,
    ExchangedEvent,
    ExchangeEvent,
    HandEvent,
    PackEvent,
    ShowdownEvent,
    ShowEvent,
    SideshowAnswerEvent,
    SideshowCardsEvent,
    SideshowEvent,
    TimeoutEvent,
    TurnEvent,
)
from rummyhall.games.patti.hands import class_name, strength
from rummyhall.games.patti.rules import (
    HAND_SIZE,
    TIMEOUT_LIMIT,
    PattiConfig,
)
from rummyhall.games.patti.views import MoveView, PattiSeatView, PattiView, SeenView
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
    ViewShape,
    first_of_game,
)
from rummyhall.native import mypyc_attr

# Phases of a game.
START: Final = "start"
"""Before the deal: the house is awaited."""
PLAY: Final = "play"
"""A player's turn."""
SIDESHOW: Final = "sideshow"
"""A sideshow was asked: the asked player must accept or refuse."""
OVER: Final = "over"

# A seat's status.
PLAYING: Final = "playing"
PACKED: Final = "packed"
SITTING_OUT: Final = "out"
"""Could not pay the boot: not dealt in."""

PATTI_VIEWS: Final = ViewShape(
    past=frozenset(),
    repeats=frozenset({"seen", "result"}),
    event_past=frozenset(),
)
"""How to read Rummy Patti views (:attr:`Game.view_shape`): ``seen`` (the hands a seat saw in
sideshows, as they were then) and the result (the hands shown at the end) repeat cards found
elsewhere; nothing describes an earlier game."""

_SHOE: Final = tuple(shoe(1, 0))
"""One pack in canonical order: ``_SHOE[code]`` is the physical card with that code."""


def _physical(deck: Sequence[Card]) -> list[Card] | None:
    """``deck`` as the physical cards of one pack, or None unless it is exactly the 52 cards, each
    once (plain cards, copy 0, stand for the pack's copy 1)."""
    if len(deck) != len(_SHOE):
        return None
    seen: set[int] = set()
    for card in deck:
        if card.is_joker or card.copy not in (0, 1) or card.code in seen:
            return None
        seen.add(card.code)
    return [_SHOE[card.code] for card in deck]


def _text(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def _display(cards: Sequence[Card]) -> list[Card]:
    """Highest rank first (aces high), then by suit: how a hand is read."""
    return sorted(cards, key=lambda card: (-(14 if card.rank == 1 else card.rank), card.code))


@mypyc_attr(allow_interpreted_subclasses=True)
class Patti(Game):
    """A game of Rummy Patti (see the module docstring)."""

    name: ClassVar[str] = "patti"
    view_shape: ClassVar[ViewShape] = PATTI_VIEWS
    view_type: ClassVar[Any] = PattiView
    event_types: ClassVar[Mapping[str, Any]] = PATTI_EVENTS

    def __init__(self, config: PattiConfig | None = None) -> None:
        super().__init__()
        self.config = config or PattiConfig()
        self.phase = START
        seats = range(1, self.config.seats + 1)
        self.order: list[int] = self.config.players
        """The seats dealt in, in turn order; the first acts first, the last is the dealer."""
        self.status: dict[int, str] = {
            seat: PLAYING if seat in self.order else SITTING_OUT for seat in seats
        }
        self.hands: dict[int, list[Card]] = {seat: [] for seat in seats}
        self.paid: dict[int, int] = {seat: 0 for seat in seats}
        self.pot = 0
        self.stake = self.config.boot
        """The last payment (the boot before anyone paid): what a chaal costs now."""
        self.open_card: Card | None = None
        self.closed_card: Card | None = None
        self.stub: list[Card] = []
        """The rest of the pack, unused."""
        self.turn: int | None = None
        self.deadline: int | None = None
        self.asker: int | None = None
        self.asked: int | None = None
        self.moved: set[int] = set()
        """Seats that have played a turn (only they can be asked for a sideshow)."""
        self.timeouts: dict[int, int] = {seat: 0 for seat in seats}
        """Timeouts in a row, per seat."""
        self.known: dict[int, set[int]] = {}
        """Card code -> the seats that saw it in a sideshow, wherever it lies now."""
        self.seen: dict[int, list[SeenView]] = {seat: [] for seat in seats}
        """Per seat: the hands it saw in sideshows (what they were then)."""
        self.moves: list[MoveView] = []
        """Every move so far, as the table saw it (no cards)."""
        self.shown: dict[int, list[Card]] = {}
        self.winners: tuple[int, ...] = ()
        self.how: str | None = None
        self._result: Result | None = None

    # --- the protocol ------------------------------------------------------------------------

    @property
    def seats(self) -> int:
        return self.config.seats

    def config_json(self) -> JSON:
        return self.config.to_json()

    @classmethod
    def create(cls, config: Mapping[str, Any]) -> Patti:
        return cls(PattiConfig.from_json(config))

    @classmethod
    def table_config(
        cls, config: Mapping[str, Any], *, game_no: int, stacks: Mapping[int, int]
    ) -> JSON:
        """Each game at a table plays with the chips the seats hold as it starts, and the first
        move passes one seat on from game to game (seat 1 first)."""
        seats = int(config["seats"])
        following: JSON = dict(config)
        following["stacks"] = [stacks.get(seat, 0) for seat in range(1, seats + 1)]
        following["first"] = first_of_game(game_no, seats)
        return following

    @property
    def result(self) -> Result | None:
        return self._result

    @property
    def first(self) -> int:
        return self.order[0]

    @property
    def dealer(self) -> int:
        return self.order[-1]

    def awaited(self) -> list[Awaited]:
        if self.phase == START:
            return [Awaited(HOUSE, "deal", None)]
        if self.phase == PLAY and self.turn is not None:
            return [Awaited(self.turn, "turn", self.deadline)]
        if self.phase == SIDESHOW and self.asked is not None:
            return [Awaited(self.asked, "sideshow", self.deadline)]
        return []

    def legal(self, seat: int) -> list[str]:
        self._check_seat(seat)
        if seat == HOUSE:
            return ["deal"] if self.phase == START else []
        if self.phase == SIDESHOW and seat == self.asked:
            return ["accept", "refuse"]
        if self.phase != PLAY or seat != self.turn:
            return []
        double = self.double_price()
        doubles = double is not None and self.stack(seat) >= double
        actions = ["chaal", *(["chaal 2x"] if doubles else [])]
        for card in _display(self.hands[seat]):
            for where in ("open", "closed"):
                actions.append(f"exchange {where} {card}")
                if doubles:
                    actions.append(f"exchange {where} {card} 2x")
        if self._sideshow_refusal(seat) is None:
            actions.append("sideshow")
        if len(self.active) == 2:
            actions.append("show")
        actions.append("pack")
        return actions

    def leave_move(self, seat: int) -> str | None:
        """A leaving player packs at their turn, and refuses a sideshow they are asked for (it
        would only keep them in the game)."""
        legal = self.legal(seat) if 1 <= seat <= self.seats else []
        if "refuse" in legal:
            return "refuse"
        return "pack" if "pack" in legal else None

    def _apply(self, seat: int, action: str, deal: Deal | None, at: int) -> list[Event]:
        if seat == HOUSE:
            assert deal is not None  # the protocol checks it
            return self._deal(deal, at)
        verb, _, rest = action.partition(" ")
        handler = self._HANDLERS.get(verb)
        if handler is None:
            raise BadAction(f"unknown action {verb!r}; see legal() for what you may do")
        return handler(self, seat, rest, at)

    # --- money -------------------------------------------------------------------------------

    def stack(self, seat: int) -> int:
        """The chips ``seat`` has left for this game (after what it paid; before the pot is won)."""
        return self.config.stacks[seat - 1] - self.paid[seat]

    def double_price(self) -> int | None:
        """What a chaal 2x costs now, or None once the chaal is at the max chaal."""
        if self.stake >= self.config.max_chaal:
            return None
        return min(2 * self.stake, self.config.max_chaal)

    def _price(self, seat: int, double: bool) -> int:
        """What ``seat`` pays for a move (chaal, or 2x); refuses what it cannot afford."""
        price = self.stake
        if double:
            doubled = self.double_price()
            if doubled is None:
                raise IllegalAction(f"the chaal is at the max chaal ({price}); 2x is not offered")
            price = doubled
        if self.stack(seat) < price:
            raise IllegalAction(f"that costs {price} chips and you have {self.stack(seat)}")
        return price

    def _pay(self, seat: int, amount: int) -> tuple[Posting, ...]:
        self.paid[seat] += amount
        self.pot += amount
        self.stake = amount
        return (Posting(f"seat:{seat}", -amount), Posting("pot", amount))

    # --- the house -----------------------------------------------------------------------------

    def _deal(self, deal: Deal, at: int) -> list[Event]:
        if self.phase != START:
            raise IllegalAction("the cards are already dealt")
        deck = _physical(deal.deck)
        if deck is None:
            raise InvalidCards("a deal must hold exactly one pack of 52 cards, each once")
        order = self.order
        count = len(order)
        boot = self.config.boot
        # --- validated ---
        for index in range(HAND_SIZE * count):
            self.hands[order[index % count]].append(deck[index])
        self.open_card = deck[HAND_SIZE * count]
        self.closed_card = deck[HAND_SIZE * count + 1]
        self.stub = deck[HAND_SIZE * count + 2 :]
        postings: list[Posting] = []
        for seat in order:
            self.paid[seat] = boot
            postings.append(Posting(f"seat:{seat}", -boot))
        self.pot = boot * count
        postings.append(Posting("pot", self.pot))
        events = [
            Event(
                "deal",
                DealEvent(
                    order=list(order),
                    first=self.first,
                    dealer=self.dealer,
                    out=[s for s, status in self.status.items() if status == SITTING_OUT],
                    boot=boot,
                    pot=self.pot,
                    open=str(self.open_card),
                ),
                postings=tuple(postings),
            )
        ]
        for seat in order:
            cards = _text(_display(self.hands[seat]))
            events.append(Event("hand", HandEvent(cards=cards), to=frozenset({seat})))
        self._start_turn(self.first, at, events)
        return events

    # --- players' actions -------------------------------------------------------------------

    def _chaal(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest not in ("", "2x"):
            raise BadAction("chaal, or chaal 2x")
        self._mover(seat, at)
        double = rest == "2x"
        amount = self._price(seat, double)
        # --- validated ---
        postings = self._pay(seat, amount)
        self._moved(seat, "chaal 2x" if double else "chaal", amount)
        events = [
            Event(
                "chaal",
                ChaalEvent(seat=seat, amount=amount, double=double, auto=False),
                postings=postings,
            )
        ]
        self._end_move(seat, at, events)
        return events

    def _exchange(self, seat: int, rest: str, at: int) -> list[Event]:
        words = rest.split()
        shape_ok = 2 <= len(words) <= 3 and words[0] in ("open", "closed")
        if not shape_ok or words[2:] not in ([], ["2x"]):
            raise BadAction("exchange open <card> or exchange closed <card>, optionally 2x")
        where, double = words[0], len(words) == 3
        try:
            wanted = parse(words[1])
        except CardError as exc:
            raise InvalidCards(str(exc)) from exc
        self._mover(seat, at)
        hand = self.hands[seat]
        released = next((card for card in hand if card == wanted), None)
        if released is None:
            raise InvalidCards(f"you do not hold {wanted}")
        amount = self._price(seat, double)
        # --- validated ---
        postings = self._pay(seat, amount)
        if where == "open":
            taken, self.open_card = self.open_card, released
        else:
            taken, self.closed_card = self.closed_card, released
        assert taken is not None
        hand[hand.index(released)] = taken
        self._moved(seat, f"exchange {where}" + (" 2x" if double else ""), amount)
        data: ExchangeEvent = {"seat": seat, "with": where, "amount": amount, "double": double}
        if where == "open":
            data["took"] = str(taken)
            data["released"] = str(released)
        events = [Event("exchange", data, postings=postings)]
        if where == "closed":
            swap = ExchangedEvent(took=str(taken), released=str(released))
            events.append(Event("exchanged", swap, to=frozenset({seat})))
        self._end_move(seat, at, events)
        return events

    def _sideshow(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("sideshow takes nothing after it")
        self._mover(seat, at)
        refusal = self._sideshow_refusal(seat)
        if refusal is not None:
            raise IllegalAction(refusal)
        amount = self._price(seat, False)
        asked = self._before(seat)
        # --- validated ---
        postings = self._pay(seat, amount)
        self._moved(seat, "sideshow", amount)
        data = SideshowEvent(seat=seat, asked=asked, amount=amount)
        if self.pot >= self.config.pot_limit:
            events = [Event("sideshow", data, postings=postings)]
            self._showdown("pot limit", events)
            return events
        self.phase = SIDESHOW
        self.asker, self.asked = seat, asked
        self.deadline = at + self.config.turn_ms
        data["deadline"] = self.deadline  # only now: a sideshow ended by the pot limit has none
        return [Event("sideshow", data, postings=postings)]

    def _answer(self, seat: int, rest: str, at: int, accept: bool) -> list[Event]:
        if rest:
            raise BadAction(f"{'accept' if accept else 'refuse'} takes nothing after it")
        if self.phase != SIDESHOW:
            raise IllegalAction("nobody has asked for a sideshow")
        if seat != self.asked:
            raise NotYourTurn(f"seat {self.asked} answers the sideshow")
        self._in_time(at)
        # --- validated ---
        self.moves.append({"seat": seat, "move": "accept" if accept else "refuse", "amount": 0})
        return self._answered(accept, at, timeout=False)

    def _accept(self, seat: int, rest: str, at: int) -> list[Event]:
        return self._answer(seat, rest, at, True)

    def _refuse(self, seat: int, rest: str, at: int) -> list[Event]:
        return self._answer(seat, rest, at, False)

    def _show(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("show takes nothing after it")
        self._mover(seat, at)
        if len(self.active) != 2:
            raise IllegalAction("a show needs exactly two players still in; ask for a sideshow")
        amount = self._price(seat, False)
        # --- validated ---
        postings = self._pay(seat, amount)
        self._moved(seat, "show", amount)
        events = [Event("show", ShowEvent(seat=seat, amount=amount), postings=postings)]
        self._showdown("show", events)
        return events

    def _pack(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("pack takes nothing after it")
        self._mover(seat, at)
        # --- validated ---
        self.moves.append({"seat": seat, "move": "pack", "amount": 0})
        events: list[Event] = []
        self._fold(seat, "packed", events)
        self._next_turn(seat, at, events)
        return events

    def _timeout(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("timeout takes nothing after it")
        waiting = self.asked if self.phase == SIDESHOW else self.turn
        if self.phase not in (PLAY, SIDESHOW) or seat != waiting:
            raise NotYourTurn(f"the game is not waiting for seat {seat}")
        assert self.deadline is not None
        if at < self.deadline:
            raise TooEarly(f"seat {seat} has until {self.deadline}")
        # --- validated ---
        if self.phase == SIDESHOW:
            self.moves.append({"seat": seat, "move": "timeout", "amount": 0})
            return self._answered(False, at, timeout=True)
        self.timeouts[seat] += 1
        events: list[Event] = []
        if self.timeouts[seat] >= TIMEOUT_LIMIT:
            events.append(Event("timeout", TimeoutEvent(seat=seat, then="pack")))
            self.moves.append({"seat": seat, "move": "timeout", "amount": 0})
            self._fold(seat, "timeouts", events)
            self._next_turn(seat, at, events)
            return events
        # The turn began only if the seat could pay the chaal, so the chaal played for it can.
        amount = self.stake
        postings = self._pay(seat, amount)
        self.moved.add(seat)
        self.moves.append({"seat": seat, "move": "timeout chaal", "amount": amount})
        events.append(Event("timeout", TimeoutEvent(seat=seat, then="chaal")))
        data = ChaalEvent(seat=seat, amount=amount, double=False, auto=True)
        events.append(Event("chaal", data, postings=postings))
        self._end_move(seat, at, events)
        return events

    _HANDLERS: ClassVar[dict[str, Callable[[Patti, int, str, int], list[Event]]]] = {}
    """By verb: filled below the class (a class body compiled by mypyc has no names of its
    methods)."""

    # --- checks ----------------------------------------------------------------------------

    def _check_seat(self, seat: int | None) -> None:
        if seat is not None and seat != HOUSE and seat not in self.status:
            raise UnknownSeat(f"there is no seat {seat} at this table")

    def _mover(self, seat: int, at: int) -> None:
        """Refuses unless ``seat`` is the player to move and still in time."""
        if self.phase == PLAY and seat == self.turn:
            self._in_time(at)
            return
        if self.phase == START:
            raise IllegalAction("the cards are not dealt yet")
        if self.status[seat] == SITTING_OUT:
            raise IllegalAction("you sit this game out")
        if self.status[seat] == PACKED:
            raise IllegalAction("you have packed")
        if self.phase == SIDESHOW:
            if seat == self.asker:
                raise IllegalAction(f"wait for seat {self.asked} to answer your sideshow")
            if seat == self.asked:
                raise IllegalAction("answer the sideshow first: accept or refuse")
            raise NotYourTurn(f"seat {self.asked} must answer a sideshow first")
        raise NotYourTurn(f"it is seat {self.turn}'s turn")

    def _in_time(self, at: int) -> None:
        if self.deadline is not None and at > self.deadline:
            raise TooLate(f"time ran out at {self.deadline}; only the timeout remains")

    def _sideshow_refusal(self, seat: int) -> str | None:
        """Why ``seat`` (the player to move) may not ask for a sideshow now; None if it may."""
        if len(self.active) < 3:
            return "a sideshow needs three or more players still in; with two, call a show"
        before = self._before(seat)
        if before not in self.moved:
            return f"seat {before} has not played a turn yet; a sideshow can wait"
        return None

    # --- turns (called only after validation) ---------------------------------------------------

    @property
    def active(self) -> list[int]:
        """The seats still in the game, in turn order."""
        return [seat for seat in self.order if self.status[seat] == PLAYING]

    def _after(self, seat: int) -> int:
        """The next seat still in after ``seat`` in turn order."""
        index = self.order.index(seat)
        count = len(self.order)
        return next(
            s
            for s in (self.order[(index + k) % count] for k in range(1, count + 1))
            if self.status[s] == PLAYING
        )

    def _before(self, seat: int) -> int:
        """The nearest seat still in before ``seat`` in turn order."""
        index = self.order.index(seat)
        count = len(self.order)
        return next(
            s
            for s in (self.order[(index - k) % count] for k in range(1, count + 1))
            if self.status[s] == PLAYING
        )

    def _moved(self, seat: int, move: str, amount: int) -> None:
        """``seat`` made a move of its own on its turn."""
        self.moved.add(seat)
        self.timeouts[seat] = 0
        self.moves.append({"seat": seat, "move": move, "amount": amount})

    def _fold(self, seat: int, why: str, events: list[Event]) -> None:
        self.status[seat] = PACKED
        events.append(Event("pack", PackEvent(seat=seat, why=why)))

    def _start_turn(self, seat: int, at: int, events: list[Event]) -> None:
        """The turn comes to ``seat``; a seat that cannot pay the chaal is packed, and the turn
        goes on (or the game ends)."""
        while self.stack(seat) < self.stake:
            self._fold(seat, "chips", events)
            self.moves.append({"seat": seat, "move": "out of chips", "amount": 0})
            if len(self.active) == 1:
                self._finish(self.active, "last player", events)
                return
            seat = self._after(seat)
        self.phase = PLAY
        self.turn = seat
        self.deadline = at + self.config.turn_ms
        events.append(Event("turn", TurnEvent(seat=seat, deadline=self.deadline)))

    def _next_turn(self, seat: int, at: int, events: list[Event]) -> None:
        """After ``seat``'s move: the last player in wins, else the next one plays."""
        active = self.active
        if len(active) == 1:
            self._finish(active, "last player", events)
            return
        self._start_turn(self._after(seat), at, events)

    def _end_move(self, seat: int, at: int, events: list[Event]) -> None:
        """After a move that paid: the pot limit ends the game, else the turn passes."""
        if self.pot >= self.config.pot_limit:
            self._showdown("pot limit", events)
            return
        self._next_turn(seat, at, events)

    def _answered(self, accept: bool, at: int, *, timeout: bool) -> list[Event]:
        asker, asked = self.asker, self.asked
        assert asker is not None and asked is not None
        events: list[Event] = []
        if timeout:
            events.append(Event("timeout", TimeoutEvent(seat=asked, then="refuse")))
        answer = SideshowAnswerEvent(seat=asked, asker=asker)
        if accept:
            events.append(Event("sideshow_accepted", answer))
            events.append(self._compare(asker, asked))
        else:
            events.append(Event("sideshow_refused", answer))
        self.phase = PLAY
        self.asker = self.asked = None
        self._next_turn(asker, at, events)
        return events

    def _compare(self, asker: int, asked: int) -> Event:
        """An accepted sideshow: the two see each other's cards, nobody else does."""
        hands = {seat: _display(self.hands[seat]) for seat in (asker, asked)}
        values = {seat: strength(cards) for seat, cards in hands.items()}
        for seat, other in ((asker, asked), (asked, asker)):
            for card in hands[other]:
                self.known.setdefault(card.code, set()).add(seat)
            mine, theirs = values[seat], values[other]
            outcome = "win" if mine > theirs else "lose" if mine < theirs else "tie"
            self.seen[seat].append(
                {
                    "seat": other,
                    "cards": _text(hands[other]),
                    "class": class_name(theirs),
                    "outcome": outcome,
                    "after_move": len(self.moves),
                }
            )
        data: SideshowCardsEvent = {
            str(seat): {"cards": _text(cards), "class": class_name(values[seat])}
            for seat, cards in hands.items()
        }
        return Event("sideshow_cards", data, to=frozenset({asker, asked}))

    def _showdown(self, how: str, events: list[Event]) -> None:
        """Every hand still in is turned over; the best takes the pot (equal ones share it)."""
        active = self.active
        for seat in active:
            self.shown[seat] = _display(self.hands[seat])
        values = {seat: strength(self.shown[seat]) for seat in active}
        best = max(values.values())
        winners = [seat for seat in active if values[seat] == best]
        events.append(
            Event(
                "showdown",
                ShowdownEvent(
                    how=how,
                    hands={str(s): _text(self.shown[s]) for s in active},
                    classes={str(s): class_name(values[s]) for s in active},
                    winners=winners,
                ),
            )
        )
        self._finish(winners, how, events)

    def _finish(self, winners: list[int], how: str, events: list[Event]) -> None:
        """Settle the pot: equal shares, the odd chips one each to the winners in turn order
        (which starts with the first seat after the dealer)."""
        share, odd = divmod(self.pot, len(winners))
        won = {seat: share + (1 if index < odd else 0) for index, seat in enumerate(winners)}
        postings = (Posting("pot", -self.pot), *(Posting(f"seat:{s}", won[s]) for s in winners))
        seats = range(1, self.seats + 1)
        stacks = {seat: self.stack(seat) + won.get(seat, 0) for seat in seats}
        result = Result(
            points={seat: won.get(seat, 0) - self.paid[seat] for seat in seats},
            winners=tuple(winners),
            postings=postings,
            detail={
                "how": how,
                "pot": self.pot,
                "shares": {str(s): won[s] for s in winners},
                "paid": {str(s): self.paid[s] for s in seats},
                "stacks": {str(s): stacks[s] for s in seats},
                "shown": {str(s): _text(cards) for s, cards in self.shown.items()},
                "first": self.first,
                "dealer": self.dealer,
            },
        )
        self._result = result
        self.winners = tuple(winners)
        self.how = how
        self.phase = OVER
        self.turn = self.deadline = None
        self.asker = self.asked = None
        events.append(Event("game_over", result.to_json()))

    # --- the next game ------------------------------------------------------------------------

    def final_stacks(self) -> tuple[int, ...]:
        """Each seat's chips after the game (the pot paid out); ValueError before the end."""
        if self._result is None:
            raise ValueError("the game is not over")
        stacks = self._result.detail["stacks"]
        return tuple(int(stacks[str(seat)]) for seat in range(1, self.seats + 1))

    def next_config(self) -> PattiConfig:
        """The next game at this table: the stacks after this one, the first move one seat on.
        ValueError before the end, or when fewer than two seats can pay the boot."""
        return self.config.following(self.final_stacks())

    # --- views -------------------------------------------------------------------------------

    def census(self) -> dict[str, list[Card]]:
        """Every card by location (see :meth:`Game.census`): ``hand:N`` (packed hands too: they
        stay face down before their player), ``shown:N`` (turned over at a showdown), ``open``,
        ``closed`` (the closed centre card), ``out`` (the unused rest of the pack). A card seen in
        a sideshow carries the seats that saw it: ``hand:3@5``, ``closed@3,5``."""
        if self.phase == START:
            return {}
        places: dict[str, list[Card]] = {"open": [], "closed": [], "out": list(self.stub)}

        def put(place: str, owner: int | None, card: Card) -> None:
            seen = self.known.get(card.code)
            extra = sorted(seen - {owner}) if seen else []
            name = place + ("@" + ",".join(map(str, extra)) if extra else "")
            places.setdefault(name, []).append(card)

        for seat in self.order:
            for card in self.hands[seat]:
                if seat in self.shown:
                    places.setdefault(f"shown:{seat}", []).append(card)
                else:
                    put(f"hand:{seat}", seat, card)
        assert self.open_card is not None and self.closed_card is not None
        places["open"].append(self.open_card)
        put("closed", None, self.closed_card)
        return {name: cards for name, cards in places.items() if cards or name in ("open", "out")}

    def view(self, seat: int | None) -> PattiView:
        self._check_seat(seat)
        return self._viewer_view(self._public_view(), seat)

    def views(self, seats: Sequence[int | None]) -> list[View]:
        # Everything but the viewer's own cards is the same for every seat: built once and
        # shared (views are read, never changed).
        for seat in seats:
            self._check_seat(seat)
        public = self._public_view()
        return [self._viewer_view(public, seat) for seat in seats]

    def _viewer_view(self, public: PattiView, seat: int | None) -> PattiView:
        """``seat``'s view: the public one, copied, with what only that seat sees."""
        data = public.copy()
        data["viewer"] = seat
        if seat is not None and seat != HOUSE:
            hand = _display(self.hands[seat])
            data["hand"] = _text(hand)
            data["class"] = class_name(strength(hand)) if hand else None
            data["seen"] = [entry.copy() for entry in self.seen[seat]]
        return data

    def _public_view(self) -> PattiView:
        dealt = self.phase != START
        double = self.double_price() if self.phase in (PLAY, SIDESHOW) else None
        return {
            "game": self.name,
            "viewer": None,
            "phase": self.phase,
            "boot": self.config.boot,
            "max_chaal": self.config.max_chaal,
            "pot_limit": self.config.pot_limit,
            "order": list(self.order),
            "first": self.first,
            "dealer": self.dealer,
            "pot": self.pot,
            "chaal": self.stake,
            "chaal_2x": double,
            "open": [str(self.open_card)] if dealt else [],
            "closed": 1 if dealt else 0,
            "turn": self.turn,
            "sideshow": (
                None
                if self.asker is None or self.asked is None
                else {"asker": self.asker, "asked": self.asked}
            ),
            "awaited": [
                {"seat": a.seat, "kind": a.kind, "deadline": a.deadline} for a in self.awaited()
            ],
            "seats": [self._seat_view(s) for s in range(1, self.seats + 1)],
            "moves": [move.copy() for move in self.moves],
            "winners": list(self.winners),
            "how": self.how,
            "result": None if self._result is None else self._result.to_json(),
        }

    def _seat_view(self, seat: int) -> PattiSeatView:
        shown = self.shown.get(seat)
        stack = self.stack(seat)
        if self._result is not None:
            stack = int(self._result.detail["stacks"][str(seat)])
        return {
            "seat": seat,
            "status": self.status[seat],
            "stack": stack,
            "paid": self.paid[seat],
            "timeouts": self.timeouts[seat],
            "moved": seat in self.moved,
            "shown": None if shown is None else _text(shown),
            "class": None if shown is None else class_name(strength(shown)),
        }


Patti._HANDLERS.update(
    {
        "chaal": Patti._chaal,
        "exchange": Patti._exchange,
        "sideshow": Patti._sideshow,
        "accept": Patti._accept,
        "refuse": Patti._refuse,
        "show": Patti._show,
        "pack": Patti._pack,
        "timeout": Patti._timeout,
    }
)
