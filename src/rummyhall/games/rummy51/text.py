"""How Rummy 51 reads as text (its catalog entry's renderer, a
:class:`rummyhall.games.text.GameText`): the narration of the terminal table (one sentence per
event), and what ``rummyhall replay --verbose`` adds to each action's line (the card taken or
drawn, what an opening is worth), the groups laid or changed under it, the deal (its order and
hands), the public state after each move, and how the game ended: places, scores, cards left and
chips."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from rummyhall.games.protocol import Event, Game, Result, data_of
from rummyhall.games.protocol_views import PostingView, ResultView, TableGroupView
from rummyhall.games.rummy51.events import (
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
)
from rummyhall.games.rummy51.views import PlaceView, Rummy51View
from rummyhall.games.text import GameText

_PAD: Final = " " * 10
"""The indent of a replay's lines under an action's line."""

_SUITS: Final = "SHDC"

_FEW_CARDS: Final = 3
"""A throw that leaves this many cards or fewer says how many are left (the end is near)."""


def chips_of(postings: Sequence[PostingView]) -> dict[int, int]:
    """The chips each seat won (+) or lost (-) in a game, from its result's postings."""
    chips: dict[int, int] = {}
    for posting in postings:
        account = posting["account"]
        if account.startswith("seat:"):
            seat = int(account.removeprefix("seat:"))
            chips[seat] = chips.get(seat, 0) + posting["amount"]
    return chips


class Rummy51Text(GameText[Rummy51View]):
    """The text of one Rummy 51 record, or of a terminal session's games (:attr:`number`)."""

    number = 1
    """The game's number in a terminal session (its headings say it)."""

    # --- groups on the table -----------------------------------------------------------------

    def jokers(self, group: TableGroupView) -> list[str]:
        """What each joker of ``group`` stands for: ``JK=6♠`` in a run; in a set, every suit it
        may be swapped for (``JK=5♦/5♣``: a joker in a set of three stands for either)."""
        v = self.voice
        if group["kind"] != "set":
            return [f"JK={v.card(stand)}" for stand in group["stands"] if stand is not None]
        naturals = {card for card in group["cards"] if card != "JK"}
        meanings = [stand for stand in group["stands"] if stand is not None]
        if not meanings:
            return []
        rank = meanings[0][:-1]
        missing = [rank + suit for suit in _SUITS if rank + suit not in naturals]
        either = "/".join(v.card(card) for card in missing)
        return [f"JK={either}" for _ in meanings]

    def group(self, group: TableGroupView) -> str:
        """A group on the table: its number, its cards, what its jokers stand for."""
        jokers = self.jokers(group)
        extra = f" ({', '.join(jokers)})" if jokers else ""
        return f"[{group['id']}] {self.voice.cards(group['cards'])}{extra}"

    # --- the terminal's narration ------------------------------------------------------------

    def narrate(self, event: Event) -> str | None:
        v = self.voice
        kind = event.kind
        if kind == "deal":
            deal = data_of(event, DealEvent)
            first = (
                v.subject(deal["first"], "move first: 15 cards,", "moves first: 15 cards,")
                + " and a first turn that is a throw, without a draw."
            )
            return "\n" + v.bold(f" Game {self.number}: ") + first
        if kind == "hand":
            return f" Your cards: {v.cards(data_of(event, HandEvent)['cards'])}"
        if kind == "draw":
            draw = data_of(event, DrawEvent)
            seat = draw["seat"]
            if draw["from"] == "open":
                what = f"the {v.card(draw.get('card', ''))} from the discard pile"
                return " " + v.subject(seat, f"take {what}", f"takes {what}")
            if seat == v.you:
                return None  # the "drew" event that follows names the card
            return " " + v.subject(seat, "draw from the stock", "draws from the stock")
        if kind == "drew":
            if v.you is None:
                return None
            what = f"the {v.card(data_of(event, DrewEvent)['card'])} from the stock"
            return " " + v.subject(v.you, f"draw {what}", f"draws {what}")
        if kind == "return":
            back = data_of(event, ReturnEvent)
            what = f"the {v.card(back['card'])} back on the discard pile"
            return " " + v.subject(back["seat"], f"put {what}", f"puts {what}")
        if kind in ("open", "meld"):
            return self._laid(kind, data_of(event, MeldEvent))
        if kind == "add":
            add = data_of(event, AddEvent)
            what = f"the {v.card(add['card'])} off: {self.group(add['group'])}"
            return " " + v.subject(add["seat"], f"lay {what}", f"lays {what}")
        if kind == "swap":
            swap = data_of(event, SwapEvent)
            group = swap["group"]
            what = (
                f"the joker from [{group['id']}], putting the {v.card(swap['card'])} in its "
                f"place: {v.cards(group['cards'])}"
            )
            return " " + v.subject(swap["seat"], f"take {what}", f"takes {what}")
        if kind == "discard":
            thrown = data_of(event, DiscardEvent)
            cards = thrown["cards"]
            what = (
                f"the {v.card(cards[-1])}, burying a joker under it"
                if thrown["buried"]
                else f"the {v.cards(cards)}"
            )
            left = thrown["left"]
            if 0 < left <= _FEW_CARDS:
                what += f" ({left} card{'s' if left > 1 else ''} left)"
            return " " + v.subject(thrown["seat"], f"throw {what}", f"throws {what}")
        if kind == "timeout":
            late = data_of(event, TimeoutEvent)
            put_back = f", the {v.card(late['returned'])} goes back," if late["returned"] else ""
            return (
                " "
                + v.subject(late["seat"], "run out of time", "runs out of time")
                + f"{put_back} throwing {v.cards(late['discarded'].split())}"
            )
        if kind == "reshuffle":
            closed = data_of(event, ReshuffleEvent)["closed"]
            return v.dim(
                f" The stock ran out: the discard pile under its top card, shuffled, is the new "
                f"stock ({closed} cards)."
            )
        if kind == "game_end":
            return self._head(data_of(event, GameEndEvent))
        if kind == "game_over":
            result = data_of(event, ResultView)
            return "\n".join(self.place_lines(**self._places(result)))
        return None

    def _laid(self, kind: str, meld: MeldEvent) -> str:
        v = self.voice
        verb = ("open", "opens") if kind == "open" else ("lay down", "lays down")
        head = " " + v.subject(meld["seat"], verb[0], verb[1])
        groups = meld["groups"]
        if kind == "open":
            head += f" with {meld['value']}"
        if len(groups) == 1:
            return f"{head}: {self.group(groups[0])}"
        return "\n".join([head + ":", *(f"     {self.group(group)}" for group in groups)])

    def _head(self, end: GameEndEvent) -> str:
        v = self.voice
        winner = end["winner"]
        if winner is None:
            return " " + v.bold("The cards ran out before anyone went out.")
        rummy = ": a Rummy!" if end["rummy"] else "."
        return " " + v.bold(v.subject(winner, "go out", "goes out") + rummy)

    @staticmethod
    def _places(result: ResultView | Result) -> dict[str, Any]:
        if isinstance(result, Result):
            postings: Sequence[PostingView] = [
                {"account": p.account, "amount": p.amount} for p in result.postings
            ]
        else:
            postings = result["postings"]
        detail = result.detail if isinstance(result, Result) else result["detail"]
        return {
            "places": detail.get("places", {}),
            "hands": detail.get("hands", {}),
            "chips": chips_of(postings) or None,
        }

    def place_lines(
        self,
        places: Mapping[str, PlaceView],
        hands: Mapping[str, Sequence[str]],
        chips: Mapping[int, int] | None = None,
    ) -> list[str]:
        """The places, best first: each seat's score, its chips (when the game had a stake) and
        the cards it was left with."""
        v = self.voice
        width = max((len(v.seat(int(seat))) for seat in places), default=0)
        lines = []
        for seat_text, place in sorted(places.items(), key=lambda item: item[1]["place"]):
            seat = int(seat_text)
            line = f"   {place['place']}. {v.pad(v.seat(seat), width)} {place['score']:>4}"
            if chips is not None:
                line += f"  {chips.get(seat, 0):>+5} chips"
            held = list(hands.get(seat_text) or [])
            if place["rummy"]:
                line += "  out: a Rummy"
            elif not held:
                line += "  out"
            elif not place["opened"]:
                line += f"  never opened: {v.cards(held)}"
            else:
                line += f"  left: {v.cards(held)}"
            lines.append(line)
        return lines

    # --- rummyhall replay --------------------------------------------------------------------

    def config_parts(self, config: Mapping[str, Any], seats: int) -> list[str]:
        stake = int(config.get("stake", 0))
        first = int(config.get("first", 1))
        return [
            f"{seats} seats",
            f"stake {stake}" if stake else "no stake",
            f"p{first} moves first",
        ]

    def note(self, event: Event) -> str | None:
        kind = event.kind
        if kind == "draw":
            draw = data_of(event, DrawEvent)
            return f"takes {draw['card']}" if "card" in draw else None
        if kind == "drew":
            return f"gets {data_of(event, DrewEvent)['card']}"
        if kind == "open":
            return f"worth {data_of(event, MeldEvent)['value']}"
        if kind == "discard":
            thrown = data_of(event, DiscardEvent)
            return "a joker buried under it" if thrown["buried"] else None
        if kind == "timeout":
            late = data_of(event, TimeoutEvent)
            parts = [f"{late['returned']} put back"] if late["returned"] else []
            if late["drew"]:
                parts.append("drew from the stock")
            parts.append(f"threw {late['discarded']}")
            return "timeout: " + ", ".join(parts)
        if kind == "closed_empty":
            return f"stock empty; {data_of(event, ClosedEmptyEvent)['open']} cards on the pile"
        if kind == "reshuffle":
            return f"stock refilled: {data_of(event, ReshuffleEvent)['closed']} cards"
        if kind == "game_end":
            end = data_of(event, GameEndEvent)
            if end["winner"] is None:
                return "the cards ran out"
            return f"p{end['winner']} goes out" + (": a Rummy" if end["rummy"] else "")
        return None

    def deal_lines(
        self,
        game: Game,
        events: Sequence[Event],
        seeds: Mapping[str, Any] | None,
        check: str | None,
    ) -> list[str]:
        lines = []
        for event in events:
            if event.kind != "deal":
                continue
            deal = data_of(event, DealEvent)
            order = " ".join(f"p{seat}" for seat in deal["order"])
            lines.append(
                f"{_PAD}order {order} · p{deal['first']} starts with 15 cards and a throw · "
                f"stock {deal['closed']}"
            )
            if seeds is not None:
                lines.append(
                    f"{_PAD}fair: commitment {seeds.get('commitment')} · client seed "
                    f"{seeds['client_seed']!r} · nonce {seeds['nonce']}"
                )
                lines.append(f"{_PAD}      check: {check}")
            for seat in deal["order"]:
                hand = self._view(game, seat).get("hand", [])
                lines.append(f"{_PAD}p{seat} hand: {' '.join(hand)}")
        return lines

    @staticmethod
    def _view(game: Game, seat: int | None) -> Rummy51View:
        """``game``'s view for ``seat``, typed as Rummy 51's."""
        return cast(Rummy51View, game.view(seat))

    def state_parts(self, view: Rummy51View) -> list[str]:
        parts = [f"stock {view['closed']}"]
        parts.append(f"pile {view['open'][-1]}" if view["open"] else "pile empty")
        parts.append("hands " + "/".join(str(seat["cards"]) for seat in view["seats"]))
        groups = len(view["table"])
        if groups:
            parts.append(f"{groups} group{'s' if groups > 1 else ''}")
        return parts

    def after_lines(self, events: Sequence[Event]) -> list[str]:
        """The groups an action laid down or changed, as they now lie."""
        lines = []
        for event in events:
            if event.kind in ("open", "meld"):
                groups = data_of(event, MeldEvent)["groups"]
            elif event.kind in ("add", "swap"):
                groups = [data_of(event, AddEvent if event.kind == "add" else SwapEvent)["group"]]
            else:
                continue
            lines += [f"{_PAD}{self.group(group)}" for group in groups]
        return lines

    def history_lines(self, game: Game) -> list[str]:
        return []

    def ending_lines(self, result: Result) -> list[str]:
        detail = result.detail
        if "places" not in detail:
            return []
        winners = result.winners
        if winners:
            head = f"p{winners[0]} went out" + (": a Rummy" if detail.get("rummy") else "")
        else:
            head = "the cards ran out before anyone went out"
        return [head, *self.place_lines(**self._places(result))]
