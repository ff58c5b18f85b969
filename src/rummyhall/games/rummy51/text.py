"""How Rummy 51 reads as text (its catalog entry's renderer, a
:class:`rummyhall.games.text.GameText`): what each event adds to its action's line, the table
after a move, and how the game ended, with places."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rummyhall.games.protocol import Event, Game, Result, TableGroupView, data_of
from rummyhall.games.rummy51.events import (
    AddEvent,
    DealEvent,
    DiscardEvent,
    DrawEvent,
    GameEndEvent,
    HandEvent,
    MeldEvent,
    ReturnEvent,
    SwapEvent,
    TimeoutEvent,
)
from rummyhall.games.rummy51.views import PlaceView, Rummy51View
from rummyhall.games.text import GameText


class Rummy51Text(GameText[Rummy51View]):
    """The text of one Rummy 51 record, or of a terminal session's games (:attr:`number`)."""

    number = 1
    """The game's number in a terminal session (its headings say it)."""

    def group(self, group: TableGroupView) -> str:
        """A group on the table: its number, its cards, what its jokers stand for."""
        v = self.voice
        stands = [f"JK={s}" for s, c in zip(group["stands"], group["cards"], strict=True) if s]
        extra = f" ({', '.join(stands)})" if stands else ""
        return f"[{group['id']}] {v.cards(group['cards'])}{extra}"

    def narrate(self, event: Event) -> str | None:
        v = self.voice
        kind = event.kind
        if kind == "deal":
            deal = data_of(event, DealEvent)
            return (
                "\n"
                + v.bold(f" Game {self.number}: ")
                + f"{v.seat(deal['first'])} moves first with 15 cards and starts by discarding."
            )
        if kind == "hand":
            return f" Your cards: {v.cards(data_of(event, HandEvent)['cards'])}"
        if kind == "draw":
            draw = data_of(event, DrawEvent)
            seat = draw["seat"]
            if draw["from"] == "open":
                what = f"the {v.card(draw.get('card', ''))} from the discard pile"
                return " " + v.subject(seat, f"take {what}", f"takes {what}")
            return " " + v.subject(seat, "draw from the stock", "draws from the stock")
        if kind == "return":
            back = data_of(event, ReturnEvent)
            what = f"the {v.card(back['card'])} back"
            return " " + v.subject(back["seat"], f"put {what}", f"puts {what}")
        if kind in ("open", "meld"):
            meld = data_of(event, MeldEvent)
            verb = ("open", "opens") if kind == "open" else ("lay down", "lays down")
            groups = "; ".join(self.group(g) for g in meld["groups"])
            return (
                " " + v.subject(meld["seat"], verb[0], verb[1]) + f" with {meld['value']}: {groups}"
            )
        if kind == "add":
            add = data_of(event, AddEvent)
            what = f"the {v.card(add['card'])} on {self.group(add['group'])}"
            return " " + v.subject(add["seat"], f"lay off {what}", f"lays off {what}")
        if kind == "swap":
            swap = data_of(event, SwapEvent)
            what = f"a joker for the {v.card(swap['card'])}: {self.group(swap['group'])}"
            return " " + v.subject(swap["seat"], f"take {what}", f"takes {what}")
        if kind == "discard":
            thrown = data_of(event, DiscardEvent)
            cards = thrown["cards"]
            what = (
                f"the {v.card(cards[-1])} with a joker buried under it"
                if thrown["buried"]
                else f"the {v.cards(cards)}"
            )
            return " " + v.subject(thrown["seat"], f"throw {what}", f"throws {what}")
        if kind == "timeout":
            late = data_of(event, TimeoutEvent)
            put_back = f", the {late['returned']} goes back," if late["returned"] else ""
            return (
                " "
                + v.subject(late["seat"], "run out of time", "runs out of time")
                + f"{put_back} throwing {v.cards(late['discarded'].split())}"
            )
        if kind == "game_end":
            return "\n".join(self._ending(data_of(event, GameEndEvent)))
        return None

    def _ending(self, end: GameEndEvent) -> list[str]:
        v = self.voice
        winner = end["winner"]
        if winner is None:
            head = " The cards ran out before anyone went out."
        else:
            rummy = ": a Rummy!" if end["rummy"] else "."
            head = " " + v.subject(winner, "go out", "goes out") + rummy
        return [head, *self.place_lines(end["places"], end["hands"])]

    def place_lines(
        self, places: Mapping[str, PlaceView], hands: Mapping[str, Sequence[str]]
    ) -> list[str]:
        v = self.voice
        lines = []
        for seat_text, place in sorted(places.items(), key=lambda item: item[1]["place"]):
            seat = int(seat_text)
            notes = []
            if not place["opened"]:
                notes.append("never opened")
            if place["rummy"]:
                notes.append("Rummy")
            note = f" ({', '.join(notes)})" if notes else ""
            held = hands.get(seat_text) or []
            cards = f": {v.cards(held)}" if held else ""
            lines.append(
                f"   {place['place']}. {v.pad(v.seat(seat), 8)} {place['score']:>4}{note}{cards}"
            )
        return lines

    def config_parts(self, config: Mapping[str, Any], seats: int) -> list[str]:
        stake = int(config.get("stake", 0))
        return [f"{seats} seats", f"stake {stake}" if stake else "no stake"]

    def state_parts(self, view: Rummy51View) -> list[str]:
        parts = [f"stock {view['closed']}"]
        if view["open"]:
            parts.append(f"discard {view['open'][-1]}")
        parts.append(f"{len(view['table'])} group(s) on the table")
        return parts

    def history_lines(self, game: Game) -> list[str]:
        return []

    def ending_lines(self, result: Result) -> list[str]:
        detail = result.detail
        return self.place_lines(detail.get("places", {}), detail.get("hands", {}))
