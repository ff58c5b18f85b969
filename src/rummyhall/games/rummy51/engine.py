"""The Rummy 51 engine: a pure state machine on the game protocol (:mod:`rummyhall.games.protocol`).
The rules are docs/rules/rummy-51.md; the numbers live in :mod:`rummyhall.games.rummy51.rules`,
the groups' own rules (what makes a set or a run, laying off, swapping a joker) in
:mod:`rummyhall.games.rummy51.groups`.

A turn is several actions (docs/records.md): ``draw closed`` or ``draw open``; then, once the
opening round is over, ``open <groups>`` (at least 51 in one go), and after opening ``meld
<groups>``, ``add <id> <card> [low|high]`` and ``swap <id> <card>`` as often as the player likes;
then ``discard <card>`` (or a joker buried under a card: ``discard 7H JK``) ends the turn. A
player who took the discard without having opened may put it back (``return``) and draw from
the stock instead. The groups on the table are the protocol's :class:`TableGroupView` (the
view's ``table``), numbered from 1 in the order they were laid down.

The game ends when a player throws their last card; the scores, places and what the room's
progression counts (cards thrown, opened, a "Rummy") are the result's ``detail``. Chips: every
player puts in the table's stake and the player who goes out takes them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from rummyhall.cards import Card, CardError, parse, parse_groups, shoe, sort_key
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
    Standing,
    TooEarly,
    TooLate,
    ViewShape,
    as_dealt,
    first_of_game,
    refilled,
)
from rummyhall.games.protocol_views import TableGroupView
from rummyhall.games.rummy51.events import (
    RUMMY51_EVENTS,
    AddEvent,
    ClosedEmptyEvent,
    DealEvent,
    DiscardEvent,
    DrawEvent,
    DrewEvent,
    GameEndEvent,
    HandEvent,
    MeldEvent,
    ReshuffleEvent,
    ReturnEvent,
    SwapEvent,
    TimeoutEvent,
    TurnEvent,
)
from rummyhall.games.rummy51.groups import End, Group, make_group
from rummyhall.games.rummy51.opening import best_opening
from rummyhall.games.rummy51.rules import (
    CARDS_THROWN_FROM,
    DECKS,
    HAND_SIZE,
    JOKERS_PER_DECK,
    NEVER_OPENED,
    OPENING,
    WIN_SCORE,
    Rummy51Config,
    hand_points,
)
from rummyhall.games.rummy51.views import OpeningHintView, PlaceView, Rummy51SeatView, Rummy51View

START: Final = "start"
PLAY: Final = "play"
RESHUFFLE: Final = "reshuffle"
OVER: Final = "over"


@dataclass(slots=True)
class _Player:
    seat: int
    hand: list[Card] = field(default_factory=list)
    opened_turn: int | None = None
    """The turn (counted from 0 over the game) in which the player opened; None: not yet."""

    @property
    def opened(self) -> bool:
        return self.opened_turn is not None


@dataclass(slots=True)
class _Discard:
    card: Card
    buried: bool = False
    """A joker thrown under an ordinary card: nobody may take it."""


@dataclass(slots=True)
class _Laid:
    id: int
    owner: int
    group: Group


def _same(a: Card, b: Card) -> bool:
    """The same physical card (equality of cards ignores the copy)."""
    return a.code == b.code and a.copy == b.copy


def _without(cards: Sequence[Card], gone: Sequence[Card]) -> list[Card]:
    """``cards`` but the physical cards ``gone`` (equality of cards ignores the copy)."""
    keys = {(card.code, card.copy) for card in gone}
    return [card for card in cards if (card.code, card.copy) not in keys]


def _parse(tokens: Sequence[str]) -> list[Card]:
    try:
        return [parse(token) for token in tokens]
    except CardError as exc:
        raise InvalidCards(str(exc)) from exc


def _take(hand: Sequence[Card], wanted: Sequence[Card]) -> list[Card]:
    """The physical cards of ``hand`` that ``wanted`` names (by value, each copy once), in the
    order named. Raises InvalidCards for a card the player does not hold (enough copies of)."""
    copies: dict[int, list[int]] = {}  # card code -> positions in ``hand``, last one first
    for position in range(len(hand) - 1, -1, -1):
        copies.setdefault(hand[position].code, []).append(position)
    taken: list[Card] = []
    for card in wanted:
        free = copies.get(card.code)
        if not free:
            raise InvalidCards(f"you do not hold {card}" + (" that often" if taken else ""))
        taken.append(hand[free.pop()])
    return taken


def group_view(laid: _Laid) -> TableGroupView:
    group = laid.group
    return {
        "id": laid.id,
        "owner": laid.owner,
        "kind": group.kind,
        "cards": [str(card) for card in group.cards],
        "stands": [None if stand is None else str(stand) for stand in group.stands],
    }


class Rummy51(Game):
    """A game of Rummy 51 (see the module docstring)."""

    name: ClassVar[str] = "rummy51"
    view_type: ClassVar[Any] = Rummy51View
    event_types: ClassVar[Mapping[str, Any]] = RUMMY51_EVENTS
    view_shape: ClassVar[ViewShape] = ViewShape(
        past=frozenset({"result"}),
        # The card drawn and the opening hint are also in the hand; an event's card is also in
        # its group.
        repeats=frozenset({"drew", "card", "opening_hint"}),
        names=frozenset({"stands"}),
    )

    def __init__(self, config: Rummy51Config | None = None) -> None:
        super().__init__()
        self.config = config or Rummy51Config()
        seats, first = self.config.seats, self.config.first
        self.order = [*range(first, seats + 1), *range(1, first)]
        """Turn order, first mover first."""
        self.players = {s: _Player(s) for s in self.order}
        self.phase: str = START
        self.stock: list[Card] = []
        """The face-down stock, top card first."""
        self.pile: list[_Discard] = []
        """The discard pile, top card last."""
        self.table: list[_Laid] = []
        self.turn: int | None = None
        self.turn_index = -1
        """Turns started in this game, less one: the opening round is turns 0 to seats - 1."""
        self.drawn = False
        """The player to move has drawn (or, in the game's first turn, needs no draw)."""
        self.drew: Card | None = None
        """The card the player to move drew this turn, while it is still in their hand."""
        self.taken: Card | None = None
        """The discard taken this turn by a player who had not opened: they must open now."""
        self.returned = False
        """The player to move put the discard back this turn, and may not take it again."""
        self.deadline: int | None = None
        self.winner: int | None = None
        self.places: dict[int, PlaceView] = {}
        self._result: Result | None = None
        self._hint: tuple[tuple[int, ...], OpeningHintView] | None = None
        """The last opening hint, by the hand it was found for (views are asked for often)."""

    # --- protocol ----------------------------------------------------------------------------

    @property
    def seats(self) -> int:
        return self.config.seats

    def config_json(self) -> JSON:
        return self.config.to_json()

    @classmethod
    def create(cls, config: Mapping[str, Any]) -> Rummy51:
        return cls(Rummy51Config.from_json(config))

    @classmethod
    def table_config(
        cls, config: Mapping[str, Any], *, game_no: int, stacks: Mapping[int, int]
    ) -> JSON:
        """The first move passes one seat on from game to game, seat 1 first."""
        following: JSON = dict(config)
        seats = int(config.get("seats", Rummy51Config().seats))
        following["first"] = first_of_game(game_no, seats)
        return following

    def shoe(self) -> tuple[int, int]:
        return (DECKS, JOKERS_PER_DECK)

    @property
    def result(self) -> Result | None:
        return self._result

    def awaited(self) -> list[Awaited]:
        if self.phase == START:
            return [Awaited(HOUSE, "deal", None)]
        if self.phase == RESHUFFLE:
            return [Awaited(HOUSE, "reshuffle", None)]
        if self.phase == PLAY and self.turn is not None:
            return [Awaited(self.turn, "turn", self.deadline)]
        return []

    def legal(self, seat: int) -> list[str]:
        if seat != HOUSE and seat not in self.players:
            return []
        if self.over:
            return []
        if seat == HOUSE:
            return ["deal"] if self.phase in (START, RESHUFFLE) else []
        if self.phase != PLAY or seat != self.turn:
            return []
        player = self.players[seat]
        if not self.drawn:
            actions = ["draw closed"]
            if self._may_take_open():
                actions.append("draw open")
            return actions
        actions = []
        if self.taken is not None:
            actions.append("return")
        if not self._first_round():
            if player.opened:
                actions += ["meld <groups>", "add <id> <card> [low|high]", "swap <id> <card>"]
            else:
                actions.append("open <groups>")
        if self.taken is None:
            distinct = sorted({str(c): c for c in player.hand}.values(), key=sort_key)
            actions += [f"discard {card}" for card in distinct if not card.is_joker]
            if any(card.is_joker for card in player.hand):
                actions.append("discard <card> JK")
                if all(card.is_joker for card in player.hand):
                    actions.append("discard " + " ".join("JK" for _ in player.hand))
        return actions

    def _apply(self, seat: int, action: str, deal: Deal | None, at: int) -> list[Event]:
        if seat == HOUSE:
            assert deal is not None  # the protocol checks it
            if self.phase == START:
                return self._deal(deal, at)
            if self.phase == RESHUFFLE:
                return self._reshuffle(deal, at)
            raise IllegalAction("the house has nothing to deal now")
        verb, _, rest = action.partition(" ")
        handler = self._HANDLERS.get(verb)
        if handler is None:
            raise BadAction(f"unknown action {verb!r}; see legal() for what you may do")
        return handler(self, seat, rest.strip(), at)

    # --- the house ---------------------------------------------------------------------------

    def _deal(self, deal: Deal, at: int) -> list[Event]:
        deck = as_dealt(deal.deck, shoe(DECKS, JOKERS_PER_DECK))
        if deck is None:
            raise InvalidCards(
                f"a deal must hold exactly the shoe: {DECKS} packs of 52 and "
                f"{DECKS * JOKERS_PER_DECK} jokers, every card once"
            )
        # --- validated ---
        count = len(self.order)
        dealt = HAND_SIZE * count + 1
        for index in range(dealt):
            self.players[self.order[index % count]].hand.append(deck[index])
        self.stock = deck[dealt:]
        dealt_event = DealEvent(first=self.order[0], order=list(self.order), closed=len(self.stock))
        events = [Event("deal", dealt_event)]
        for seat in self.order:
            hand = sorted(self.players[seat].hand, key=sort_key)
            events.append(
                Event("hand", HandEvent(cards=[str(c) for c in hand]), to=frozenset({seat}))
            )
        self._start_turn(self.order[0], at, events, draw=False)
        return events

    def refill_source(self) -> list[Card]:
        if self.phase != RESHUFFLE:
            return []
        return [entry.card for entry in self.pile[:-1]]

    def _reshuffle(self, deal: Deal, at: int) -> list[Event]:
        stock = refilled(deal, self.refill_source(), "discard pile")
        assert self.turn is not None
        # --- validated ---
        self.stock = stock
        self.pile = self.pile[-1:]
        events = [Event("reshuffle", ReshuffleEvent(closed=len(self.stock)))]
        self._play(self.turn, at, events)
        return events

    # --- players' actions --------------------------------------------------------------------

    def _draw(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest not in ("open", "closed"):
            raise BadAction("draw open or draw closed")
        player = self._mover(seat, at)
        if self.drawn:
            if self.turn_index == 0:
                raise IllegalAction("the first player starts by discarding, without a draw")
            raise IllegalAction("you have already drawn this turn")
        if rest == "open" and not self._may_take_open():
            raise IllegalAction(self._why_not_open())
        # --- validated ---
        self.drawn = True
        if rest == "open":
            card = self.pile.pop().card
            self.drew = card
            if not player.opened and not self._first_round():
                self.taken = card
            player.hand.append(card)
            taken: DrawEvent = {"seat": seat, "from": "open", "card": str(card)}
            return [Event("draw", taken)]
        card = self.stock.pop(0)
        self.drew = card
        player.hand.append(card)
        drawn: DrawEvent = {"seat": seat, "from": "closed", "closed": len(self.stock)}
        return [
            Event("draw", drawn),
            Event("drew", DrewEvent(card=str(card)), to=frozenset({seat})),
        ]

    def _return(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("return takes nothing after it")
        player = self._mover(seat, at)
        card = self.taken
        if card is None:
            raise IllegalAction("only a discard taken without opening can be put back")
        # --- validated ---
        player.hand = _without(player.hand, [card])
        self.pile.append(_Discard(card))
        self.taken = self.drew = None
        self.drawn = False
        self.returned = True
        return [Event("return", ReturnEvent(seat=seat, card=str(card)))]

    def _open(self, seat: int, rest: str, at: int) -> list[Event]:
        player = self._melder(seat, at)
        if player.opened:
            raise IllegalAction("you have opened already; lay down more groups with meld")
        groups, used = self._new_groups(player, rest, opening=True)
        value = sum(group.value for group in groups)
        if value < OPENING:
            raise IllegalAction(f"an opening must be worth {OPENING} or more, not {value}")
        # --- validated ---
        player.opened_turn = self.turn_index
        self.taken = None
        return [Event("open", self._lay(player, groups, used, value))]

    def _meld(self, seat: int, rest: str, at: int) -> list[Event]:
        player = self._melder(seat, at)
        if not player.opened:
            raise IllegalAction(f"open first: groups worth {OPENING} or more in one go")
        groups, used = self._new_groups(player, rest, opening=False)
        # --- validated ---
        value = sum(group.value for group in groups)
        return [Event("meld", self._lay(player, groups, used, value))]

    def _add(self, seat: int, rest: str, at: int) -> list[Event]:
        tokens = rest.split()
        if len(tokens) not in (2, 3) or (len(tokens) == 3 and tokens[2] not in ("low", "high")):
            raise BadAction("add <group id> <card> [low|high]")
        player = self._melder(seat, at)
        laid = self._laid(tokens[0])
        if not player.opened:
            raise IllegalAction("you may add to groups on the table once you have opened")
        (card,) = _take(player.hand, _parse(tokens[1:2]))
        if len(player.hand) == 1:
            raise IllegalAction("keep a card to throw: your last card cannot go on the table")
        end: End | None = "low" if tokens[2:] == ["low"] else "high" if tokens[2:] else None
        grown = laid.group.add(card, end)
        if grown is None:
            raise IllegalAction(f"the {card} does not fit group {laid.id}")
        # --- validated ---
        laid.group = grown
        self._lose(player, [card])
        return [Event("add", AddEvent(seat=seat, card=str(card), group=group_view(laid)))]

    def _swap(self, seat: int, rest: str, at: int) -> list[Event]:
        tokens = rest.split()
        if len(tokens) != 2:
            raise BadAction("swap <group id> <card>")
        player = self._melder(seat, at)
        laid = self._laid(tokens[0])
        if not player.opened:
            raise IllegalAction("you may swap a joker once you have opened")
        (card,) = _take(player.hand, _parse(tokens[1:2]))
        if card.is_joker:
            raise InvalidCards("swap a joker for the card it stands for, not for a joker")
        swapped = laid.group.swap(card)
        if swapped is None:
            raise IllegalAction(f"no joker in group {laid.id} stands for the {card}")
        # --- validated ---
        laid.group, joker = swapped
        self._lose(player, [card])
        player.hand.append(joker)
        return [Event("swap", SwapEvent(seat=seat, card=str(card), group=group_view(laid)))]

    def _discard(self, seat: int, rest: str, at: int) -> list[Event]:
        player = self._mover(seat, at)
        if not self.drawn:
            raise IllegalAction("draw a card first")
        if self.taken is not None:
            raise IllegalAction(
                f"you took the {self.taken} from the discard pile: open this turn, or put it "
                "back (return)"
            )
        cards = _take(player.hand, _parse(rest.split()))
        jokers = [card for card in cards if card.is_joker]
        natural = [card for card in cards if not card.is_joker]
        everything = len(cards) == len(player.hand)
        if not cards:
            raise BadAction("discard <card>, or discard <card> JK to bury a joker")
        if natural and (len(natural) > 1 or len(jokers) > 1):
            raise BadAction("throw one card, or one card with one joker buried under it")
        if not natural and not everything:
            raise IllegalAction(
                "a joker is thrown alone only when jokers are all you have left; bury it under "
                "an ordinary card instead (discard <card> JK)"
            )
        # --- validated ---
        self._lose(player, cards)
        buried = bool(natural and jokers)
        self.pile += [_Discard(joker, buried=buried) for joker in jokers]
        self.pile += [_Discard(card) for card in natural]
        thrown = [*jokers, *natural]
        data = DiscardEvent(
            seat=seat, cards=[str(c) for c in thrown], buried=buried, left=len(player.hand)
        )
        events = [Event("discard", data)]
        self._after_discard(player, at, events)
        return events

    def _timeout(self, seat: int, rest: str, at: int) -> list[Event]:
        if rest:
            raise BadAction("timeout takes nothing after it")
        if self.phase != PLAY or seat != self.turn:
            raise NotYourTurn(f"the game is not waiting for seat {seat}")
        assert self.deadline is not None
        if at < self.deadline:
            raise TooEarly(f"seat {seat} has until {self.deadline}")
        # --- validated ---
        player = self.players[seat]
        returned = self.taken
        if returned is not None:
            player.hand = _without(player.hand, [returned])
            self.pile.append(_Discard(returned))
            self.taken = self.drew = None
            self.drawn = False
        drew = not self.drawn
        drawn: Card | None = None
        if drew:
            # The stock is never empty at a turn's start: the house refills it first.
            drawn = self.drew = self.stock.pop(0)
            player.hand.append(drawn)
            self.drawn = True
        throw = self._timeout_card(player)
        self._lose(player, throw)
        self.pile += [_Discard(card) for card in throw]
        data = TimeoutEvent(
            seat=seat,
            returned=None if returned is None else str(returned),
            drew=drew,
            discarded=" ".join(str(card) for card in throw),
        )
        events = [Event("timeout", data)]
        if drawn is not None:
            events.append(Event("drew", DrewEvent(card=str(drawn)), to=frozenset({seat})))
        self._after_discard(player, at, events)
        return events

    _HANDLERS: ClassVar[dict[str, Callable[[Rummy51, int, str, int], list[Event]]]] = {
        "draw": _draw,
        "return": _return,
        "open": _open,
        "meld": _meld,
        "add": _add,
        "swap": _swap,
        "discard": _discard,
        "timeout": _timeout,
    }

    # --- checks ------------------------------------------------------------------------------

    def _mover(self, seat: int, at: int) -> _Player:
        """The player to move, if ``seat`` is that player and still in time."""
        if self.phase == PLAY and seat == self.turn:
            assert self.deadline is not None
            if at > self.deadline:
                raise TooLate(f"time ran out at {self.deadline}; only the timeout remains")
            return self.players[seat]
        if self.phase == RESHUFFLE and seat == self.turn:
            raise IllegalAction("the stock is being refilled; wait for the house")
        if self.phase in (PLAY, RESHUFFLE):
            raise NotYourTurn(f"it is seat {self.turn}'s turn")
        raise IllegalAction("no game is in progress")

    def _melder(self, seat: int, at: int) -> _Player:
        """The player to move, once they have drawn and the opening round is over."""
        player = self._mover(seat, at)
        if not self.drawn:
            raise IllegalAction("draw a card first")
        if self._first_round():
            raise IllegalAction("nobody lays cards down before everyone has had a turn")
        return player

    def _first_round(self) -> bool:
        return self.turn_index < len(self.order)

    def _may_take_open(self) -> bool:
        return not self.drawn and not self.returned and bool(self.pile) and not self.pile[-1].buried

    def _why_not_open(self) -> str:
        if self.returned:
            return "you put the discard back this turn; draw from the stock"
        if not self.pile:
            return "the discard pile is empty; draw from the stock"
        return "the joker on the discard pile is buried; draw from the stock"

    def _laid(self, text: str) -> _Laid:
        if not text.isdigit():
            raise BadAction(f"name a group on the table by its number, not {text!r}")
        number = int(text)
        if not 1 <= number <= len(self.table):
            raise InvalidCards(f"there is no group {number} on the table")
        return self.table[number - 1]

    def _new_groups(
        self, player: _Player, text: str, *, opening: bool
    ) -> tuple[list[Group], list[Card]]:
        """The groups ``text`` names, made of the player's cards; raises unless every one is a
        valid group under the rules for an opening or a later meld, and a card stays in hand."""
        try:
            named = parse_groups(text)
        except CardError as exc:
            raise InvalidCards(str(exc)) from exc
        if not named:
            raise BadAction("give the groups, separated by |")
        used = _take(player.hand, [card for group in named for card in group])
        if len(used) >= len(player.hand):
            raise IllegalAction("keep a card to throw: you may not lay down every card you hold")
        groups: list[Group] = []
        at = 0
        for cards in named:
            physical = used[at : at + len(cards)]
            at += len(cards)
            made = make_group(physical, max_set_jokers=1, max_run_jokers=1 if opening else None)
            if made is None:
                shown = " ".join(str(card) for card in cards)
                why = " with at most one joker in a group when opening" if opening else ""
                raise InvalidCards(f"{shown} is not a set or a run{why}")
            groups.append(made)
        return groups, used

    # --- changes (after validation) ----------------------------------------------------------

    def _lose(self, player: _Player, cards: Sequence[Card]) -> None:
        player.hand = _without(player.hand, cards)
        if self.drew is not None and any(_same(self.drew, card) for card in cards):
            self.drew = None

    def _lay(self, player: _Player, groups: list[Group], used: list[Card], value: int) -> MeldEvent:
        self._lose(player, used)
        views: list[TableGroupView] = []
        for group in groups:
            laid = _Laid(len(self.table) + 1, player.seat, group)
            self.table.append(laid)
            views.append(group_view(laid))
        return MeldEvent(seat=player.seat, groups=views, value=value)

    def _timeout_card(self, player: _Player) -> list[Card]:
        """What a timed-out turn throws: the card drawn, unless it is a joker or gone to the
        table; else the highest ordinary card; a hand of jokers only goes out with all of them."""
        if self.drew is not None and not self.drew.is_joker:
            return [self.drew]
        natural = [card for card in player.hand if not card.is_joker]
        if not natural:
            return list(player.hand)
        return [max(natural, key=lambda card: (hand_points(card), sort_key(card)))]

    def _after_discard(self, player: _Player, at: int, events: list[Event]) -> None:
        if not player.hand:
            self._end(player.seat, events)
            return
        index = self.order.index(player.seat)
        self._start_turn(self.order[(index + 1) % len(self.order)], at, events, draw=True)

    def _start_turn(self, seat: int, at: int, events: list[Event], *, draw: bool) -> None:
        self.turn = seat
        self.turn_index += 1
        self.drawn = not draw
        self.drew = self.taken = None
        self.returned = False
        if not draw or self.stock:
            self._play(seat, at, events)
        elif len(self.pile) > 1:
            self.phase = RESHUFFLE
            self.deadline = None
            events.append(Event("closed_empty", ClosedEmptyEvent(open=len(self.pile))))
        else:
            # Nothing left to draw: the game ends with nobody out (almost every card is on the
            # table); the scores stand as the hands are.
            self._end(None, events)

    def _play(self, seat: int, at: int, events: list[Event]) -> None:
        self.phase = PLAY
        self.deadline = at + self.config.turn_ms
        events.append(
            Event("turn", TurnEvent(seat=seat, deadline=self.deadline, draw=not self.drawn))
        )

    def _end(self, winner: int | None, events: list[Event]) -> None:
        self.phase = OVER
        self.winner = winner
        self.deadline = None
        rummy = False
        scores: dict[int, int] = {}
        for seat, player in self.players.items():
            if seat == winner:
                scores[seat] = WIN_SCORE
                rummy = player.opened_turn == self.turn_index
            elif player.opened:
                scores[seat] = sum(hand_points(card) for card in player.hand)
            else:
                scores[seat] = NEVER_OPENED
        start = self.order.index(winner) if winner is not None else 0
        around = self.order[start:] + self.order[:start]
        after_winner = {seat: index for index, seat in enumerate(around)}

        def rank(seat: int) -> tuple[int, int, int]:
            return (scores[seat], len(self.players[seat].hand), after_winner[seat])

        for place, seat in enumerate(sorted(self.players, key=rank), 1):
            left = len(self.players[seat].hand)
            self.places[seat] = PlaceView(
                place=place,
                score=scores[seat],
                cards_left=left,
                cards_thrown=max(0, CARDS_THROWN_FROM - left),
                opened=self.players[seat].opened,
                rummy=rummy and seat == winner,
            )
        hands = {
            str(seat): [str(c) for c in sorted(p.hand, key=sort_key)]
            for seat, p in self.players.items()
        }
        places = {str(seat): place for seat, place in sorted(self.places.items())}
        events.append(
            Event("game_end", GameEndEvent(winner=winner, rummy=rummy, hands=hands, places=places))
        )
        stake = self.config.stake
        postings: tuple[Posting, ...] = ()
        if winner is not None and stake:
            losers = [seat for seat in self.order if seat != winner]
            paid = stake * len(losers)
            won = self.config.reward or paid
            postings = (
                *(Posting(f"seat:{seat}", -stake) for seat in losers),
                Posting(f"seat:{winner}", won),
                *((Posting("house", paid - won),) if paid > won else ()),
            )
        self._result = Result(
            points=dict(sorted(scores.items())),
            winners=() if winner is None else (winner,),
            postings=postings,
            detail={"places": places, "hands": hands, "rummy": rummy},
        )
        events.append(Event("game_over", self._result.to_json()))

    def standings(self, nets: Mapping[int, int]) -> dict[int, Standing]:
        """The game's own places (by score, not chips) with its card bonuses."""
        return {
            seat: Standing(
                place=place["place"],
                cards_thrown=place["cards_thrown"],
                opened=place["opened"],
                rummy=place["rummy"],
            )
            for seat, place in self.places.items()
        }

    # --- what seats see ----------------------------------------------------------------------

    def census(self) -> dict[str, list[Card]]:
        if self.phase == START:
            return {}
        places: dict[str, list[Card]] = {
            "closed": list(self.stock),
            "open": [entry.card for entry in self.pile],
            "table": [card for laid in self.table for card in laid.group.cards],
        }
        # Hands are shown to everyone once the game is over.
        prefix = "shown" if self.over else "hand"
        for seat, player in self.players.items():
            places[f"{prefix}:{seat}"] = list(player.hand)
        return places

    def view(self, seat: int | None) -> Rummy51View:
        if seat is not None and seat not in self.players:
            raise ValueError(f"there is no seat {seat}")
        seats: list[Rummy51SeatView] = []
        for number in sorted(self.players):
            player = self.players[number]
            entry = Rummy51SeatView(seat=number, cards=len(player.hand), opened=player.opened)
            if self.over:
                entry["hand"] = [str(c) for c in sorted(player.hand, key=sort_key)]
            seats.append(entry)
        data = Rummy51View(
            game=self.name,
            viewer=seat,
            phase=self.phase,
            first=self.order[0],
            seats=seats,
            turn=self.turn,
            drawn=self.drawn,
            first_round=self._first_round(),
            must_open=self.taken is not None,
            may_take_open=seat == self.turn and self.phase == PLAY and self._may_take_open(),
            opening=OPENING,
            open=[str(entry.card) for entry in self.pile],
            closed=len(self.stock),
            table=[group_view(laid) for laid in self.table],
            awaited=[
                {"seat": a.seat, "kind": a.kind, "deadline": a.deadline} for a in self.awaited()
            ],
            result=None if self._result is None else self._result.to_json(),
        )
        if seat is not None:
            player = self.players[seat]
            data["hand"] = [str(c) for c in sorted(player.hand, key=sort_key)]
            data["drew"] = str(self.drew) if seat == self.turn and self.drew is not None else None
            if (
                seat == self.turn
                and self.phase == PLAY
                and self.drawn
                and not player.opened
                and not self._first_round()
            ):
                data["opening_hint"] = self._opening_hint(player)
        return data

    def _opening_hint(self, player: _Player) -> OpeningHintView:
        key = tuple(sorted(card.code for card in player.hand))
        if self._hint is None or self._hint[0] != key:
            best = best_opening(player.hand, keep=1, opening=True)
            hint = OpeningHintView(
                groups=[[str(card) for card in group.cards] for group in best.groups],
                value=best.value,
                opens=best.opens,
            )
            self._hint = (key, hint)
        return self._hint[1]
