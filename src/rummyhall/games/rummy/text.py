"""How a rummy game on the shared engine reads as text (a :class:`rummyhall.games.text.GameText`,
each game's catalog entry names its own subclass): the table in short, what each event adds to
its line, the start and end of each deal, and the deals of a match. Events are read as their
types (:mod:`rummyhall.games.rummy.events`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from rummyhall.games.protocol import Event, Game, data_of
from rummyhall.games.rummy.events import (
    DealEvent,
    DeclarationEvent,
    DiscardEvent,
    DrawEvent,
    DrewEvent,
    DropEvent,
    MissedEvent,
    RejoinEvent,
    RemovedEvent,
    ReshuffleEvent,
    TossEvent,
)
from rummyhall.games.rummy.views import DealSummary, RummyView, ValueHoldingView
from rummyhall.games.text import GameText

_PAD = " " * 10


# The words both a replay's notes and a table's narration use.
def _drop(data: DropEvent) -> str:
    return f"{data['how']}, {data['score']} points"


def _wrong(data: DeclarationEvent) -> str:
    return f"wrong declaration ({data.get('reason')}), {data.get('score')} points"


def _rejoin(data: RejoinEvent) -> str:
    return f"on {data['total']} points"


def _seat(event: Event) -> int:
    """The seat an event is about; a private event (the closed card drawn) names no seat: it is
    the seat it is shown to."""
    seat = event.data.get("seat")
    if isinstance(seat, int):
        return seat
    return min(event.to) if event.to else 0


def holding_words(holding: ValueHoldingView) -> str:
    """A seat's value cards in words: "1 marriage, 2 lower jokers (130 from each)"."""
    parts = []
    if holding["marriages"]:
        marriages = holding["marriages"]
        parts.append(f"{marriages} marriage{'s' if marriages > 1 else ''}")
    for kind in ("cut", "upper", "lower"):
        left = holding[kind] - holding["marriages"]
        if left:
            parts.append(f"{left} {kind} joker{'s' if left > 1 else ''}")
    if not parts:
        return "no value cards"
    return f"{', '.join(parts)} ({holding['worth']} from each)"


def settlement_lines(data: DealSummary, name: Callable[[int], str]) -> list[str]:
    """Marriage: the value cards each seat still in the deal held, and every seat's net for the
    deal (its card points, value cards and the net loss cap together); nothing for a game that
    settles on card points alone."""
    if "settlement" not in data:
        return []
    lines = ["value cards:"]
    for key, holding in data.get("values", {}).items():
        lines.append(f"  {name(int(key))}: {holding_words(holding)}")
    nets = " · ".join(f"{name(int(k))} {line['net']:+d}" for k, line in data["settlement"].items())
    lines.append(f"net: {nets}")
    capped = [name(int(k)) for k, line in data["settlement"].items() if line["cap_relief"]]
    if capped:
        lines.append(f"(the net loss cap limited {', '.join(capped)})")
    return lines


class RummyText(GameText[RummyView]):
    """The text of one rummy record, read from its start (it remembers each declaration's
    finish card until its deal ends)."""

    def view_of(self, game: Game, seat: int | None) -> RummyView:
        """``game``'s view for ``seat``, typed (every game on the shared engine gives one)."""
        return cast(RummyView, game.view(seat))

    def __init__(self) -> None:
        self.finishes: dict[int, str] = {}
        self.wild: str | None = None
        """The wild rank :meth:`narrate` marks (the terminal table sets it from its view)."""

    def config_parts(self, config: Mapping[str, Any], seats: int) -> list[str]:
        parts = []
        if "profile" in config:
            parts.append(str(config["profile"]))
        parts.append(f"{seats} seats")
        mode = config.get("mode", "points")  # a game with no pools (Marriage) has no mode
        if mode == "points":
            parts.append(f"points, {config.get('point_value', 1)} chip(s) a point")
        elif isinstance(mode, str):
            parts.append(f"{mode}, entry fee {config.get('entry_fee', 0)}")
            if config.get("rake_percent"):
                parts.append(f"rake {config['rake_percent']}%")
        return parts

    def note(self, event: Event) -> str | None:
        kind = event.kind
        if kind == "draw":
            draw = data_of(event, DrawEvent)
            return f"takes {draw['card']}" if "card" in draw else None
        if kind == "drew":
            return f"gets {data_of(event, DrewEvent)['card']}"
        if kind == "drop":
            return _drop(data_of(event, DropEvent))
        if kind == "declaration":
            declaration = data_of(event, DeclarationEvent)
            return "valid declaration" if declaration["valid"] else _wrong(declaration)
        if kind == "missed":
            missed = data_of(event, MissedEvent)
            thrown = f", {missed['discarded']} thrown" if "discarded" in missed else ""
            return f"missed turn {missed['missed']}{thrown}"
        if kind == "removed":
            return f"removed, {data_of(event, RemovedEvent)['score']}"
        if kind == "rejoin":
            return f"rejoins {_rejoin(data_of(event, RejoinEvent))}"
        if kind == "reshuffle":
            return f"closed deck refilled: {data_of(event, ReshuffleEvent)['closed']} cards"
        if kind == "closed_empty":
            return "closed deck empty"
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
            if event.kind == "toss":
                toss = data_of(event, TossEvent)
                cards = ", ".join(f"p{seat} {card}" for seat, card in toss["cards"])
                order = " ".join(f"p{seat}" for seat in toss["order"])
                lines.append(f"{_PAD}toss: {cards} -> order {order}")
            elif event.kind == "deal":
                data = data_of(event, DealEvent)
                order = " ".join(f"p{seat}" for seat in data["order"])
                lines.append(
                    f"{_PAD}deal {data['deal']}: order {order} · cut {data['cut']} "
                    f"(wild {data['wild_rank']}) · open {data['open']} · closed {data['closed']}"
                )
                if seeds is not None:
                    lines.append(
                        f"{_PAD}fair: commitment {seeds.get('commitment')} · client seed "
                        f"{seeds['client_seed']!r} · nonce {seeds['nonce']}"
                    )
                    lines.append(f"{_PAD}      server seed {seeds['server_seed']}")
                    lines.append(f"{_PAD}      check: {check}")
                for seat in data["order"]:
                    hand = self.view_of(game, seat).get("hand", [])
                    lines.append(f"{_PAD}p{seat} hand: {' '.join(hand)}")
        return lines

    def state_parts(self, view: RummyView) -> list[str]:
        parts = []
        if view.get("open"):
            parts.append(f"open {view['open'][-1]}")
        if "closed" in view and view.get("phase") not in ("between", "over", "start"):
            parts.append(f"closed {view['closed']}")
        return parts

    def after_lines(self, events: Sequence[Event]) -> list[str]:
        lines = []
        for event in events:
            if event.kind == "declaration":
                declaration = data_of(event, DeclarationEvent)
                if "finish" in declaration:
                    self.finishes[declaration["seat"]] = declaration["finish"]
            if event.kind == "deal_end":
                lines += self._deal_end_lines(data_of(event, DealSummary))
                self.finishes = {}
        return lines

    def _deal_end_lines(self, data: DealSummary) -> list[str]:
        finishes = self.finishes
        lines = [f"{_PAD}deal {data['deal']} over: p{data['winner']} wins"]
        for key, score in data["scores"].items():
            how = data["how"].get(key) or ""
            shown = data["shown"].get(key)
            line = f"{_PAD}  p{key:<3}{score:>4}  {how:<18}"
            if shown:
                line += " | ".join(" ".join(group) for group in shown)
                if int(key) in finishes:
                    line += f"  (finish {finishes[int(key)]})"
            lines.append(line.rstrip())
        if "totals" in data:
            totals = " · ".join(f"p{seat} {total}" for seat, total in data["totals"].items())
            lines.append(f"{_PAD}totals: {totals}")
            if data.get("eliminated"):
                lines.append(f"{_PAD}eliminated: {' '.join(f'p{s}' for s in data['eliminated'])}")
        lines += [f"{_PAD}{line}" for line in settlement_lines(data, lambda seat: f"p{seat}")]
        return lines

    def history_lines(self, game: Game) -> list[str]:
        """Per-seat points of each deal; a pool as a table of scores and running totals."""
        lines: list[str] = []
        result = game.result
        history: list[DealSummary]
        if result is not None and "deals" in result.detail:
            history = list(result.detail["deals"])
        else:
            history = list(self.view_of(game, None)["history"])
        seats = range(1, game.seats + 1)
        pool = any("totals" in deal for deal in history)
        if pool:
            lines.append("deal  winner  " + "".join(f"{f'p{s}':>10}" for s in seats))
            for deal in history:
                cells = []
                for seat in seats:
                    key = str(seat)
                    if key in deal["scores"]:
                        cell = f"{deal['scores'][key]} ({deal['totals'][key]})"
                        if seat in deal.get("eliminated", []):
                            cell += "x"
                    else:
                        cell = "-"
                    cells.append(f"{cell:>10}")
                lines.append(f"{deal['deal']:>4}  p{deal['winner']:<6}" + "".join(cells))
            lines.append("      (each cell: the deal's score (running total); x: eliminated)")
        else:
            for deal in history:
                lines.append(f"deal {deal['deal']}: p{deal['winner']} wins")
                for key, score in deal["scores"].items():
                    how = deal["how"].get(key) or ""
                    if int(key) in deal["deal_show"]:
                        how += " (deal show)"
                    lines.append(f"  p{key:<3} {score:>4}  {how}")
        return lines

    # --- at a table (the terminal) ----------------------------------------------------------

    def narrate(self, event: Event) -> str | None:
        v = self.voice
        wild = self.wild
        kind = event.kind
        seat = _seat(event)
        if kind == "toss":
            toss = data_of(event, TossEvent)
            cards = " · ".join(f"{v.seat(int(s))} {v.card(str(c))}" for s, c in toss["cards"])
            order = ", ".join(f"p{s}" for s in toss["order"])
            return f" Toss: {cards} → order {order}"
        if kind == "deal":
            deal = data_of(event, DealEvent)
            lines = [
                "",
                v.bold(f" Deal {deal['deal']}: ")
                + f"{v.seat(deal['first'])} moves first. Cut joker {v.card(deal['cut'], wild)}"
                f" (wild rank {deal['wild_rank']}), open card {v.card(deal['open'], wild)}.",
            ]
            return "\n".join(lines)
        if kind == "draw":
            draw = data_of(event, DrawEvent)
            if "card" in draw:
                card = v.card(draw["card"], wild)
                return " " + v.subject(
                    seat, f"take {card} from the open pile", f"takes {card} from the open pile"
                )
            return (
                None if seat == v.you else " " + v.subject(seat, "", "draws from the closed deck")
            )
        if kind == "drew":
            card = v.card(data_of(event, DrewEvent)["card"], wild)
            return " " + v.subject(
                seat, f"draw {card} from the closed deck", f"draws {card} from the closed deck"
            )
        if kind == "discard":
            card = v.card(data_of(event, DiscardEvent)["card"], wild)
            return " " + v.subject(seat, f"discard {card}", f"discards {card}")
        if kind == "drop":
            text = f"({_drop(data_of(event, DropEvent))})"
            return " " + v.subject(seat, f"drop {text}", f"drops {text}")
        if kind == "declaration":
            declaration = data_of(event, DeclarationEvent)
            groups = declaration.get("groups")
            if declaration["valid"]:
                finish = v.card(declaration.get("finish", ""), wild)
                return (
                    " "
                    + v.subject(seat, "declare", "declares")
                    + v.green(" — valid!")
                    + f"\n    {v.groups(groups or [], wild)}   finish {finish}"
                )
            text = f" — {_wrong(declaration)}"
            line = " " + v.subject(seat, "declare", "declares") + v.red(text)
            if groups is not None:
                line += f"\n    {v.groups(groups, wild)}"
            return line
        if kind == "show_phase":
            return " Everyone still in the deal now shows their groups."
        if kind == "show":
            return " " + v.subject(seat, "show your groups", "shows")
        if kind == "missed":
            return " " + v.subject(seat, "miss a turn", "misses a turn")
        if kind == "removed":
            return " " + v.subject(seat, "are removed", "is removed") + " (missed turns)"
        if kind == "closed_empty":
            return " The closed deck is empty: the house shuffles the open pile into a new one."
        if kind == "reshuffle":
            return f" New closed deck: {data_of(event, ReshuffleEvent)['closed']} cards."
        if kind == "rejoin":
            rejoin = data_of(event, RejoinEvent)
            return " " + v.subject(seat, "rejoin", "rejoins") + f" {_rejoin(rejoin)}"
        return None

    def deal_end_lines(self, data: DealSummary, view: RummyView) -> list[str]:
        """A deal's end at a table: its scores, how each seat ended and the groups shown, from
        the ``deal_end`` event's ``data`` and the ``view`` after it."""
        v = self.voice
        wild = view["wild_rank"]
        pool = view["mode"] != "points"
        winner = data["winner"]
        lines = [
            "",
            v.rule(f"Deal {data['deal']} over: {v.seat(winner)} wins"),
        ]
        head = "  " + v.pad("seat", 14) + v.rpad("points", 7) + "  " + v.pad("how", 18)
        lines.append(v.dim(head + (v.rpad("total", 7) if pool else "")))
        totals = data.get("totals", {})
        eliminated = data.get("eliminated", [])
        entries = {entry["seat"]: entry for entry in view["seats"]}
        for seat_text, score in sorted(data["scores"].items(), key=lambda item: int(item[0])):
            seat = int(seat_text)
            how = data["how"].get(seat_text) or ""
            if seat in data["deal_show"]:
                how += " (deal show)"
            row = "  " + v.pad(v.seat(seat), 14) + v.rpad(str(score), 7) + "  " + v.pad(how, 18)
            if pool:
                row += v.rpad(str(totals.get(seat_text, "")), 7)
                if seat in eliminated:
                    row += v.red("  out")
            lines.append(v.bold(row) if seat == v.you else row)
            shown = data["shown"].get(seat_text)
            if shown:
                groups = v.groups(shown, wild)
                entry = entries.get(seat)
                finish = None if entry is None else entry.get("finish")
                extra = v.dim(f"   finish {v.card(finish, wild)}") if finish else ""
                lines.append(f"      {groups}{extra}")
        lines += [f" {line}" for line in settlement_lines(data, v.seat)]
        return lines

    def game_over_lines(self, view: RummyView) -> list[str]:
        """The match's end at a table: the winner, totals of a pool, chips, from the ``view``."""
        v = self.voice
        result = view["result"]
        assert result is not None, "the game is over"
        winners = ", ".join(v.seat(s) for s in result["winners"])
        lines = ["", v.rule("Game over"), f" Winner: {v.bold(winners)}"]
        if view["mode"] != "points":
            totals = " · ".join(f"{v.seat(int(s))} {pts}" for s, pts in result["points"].items())
            lines.append(f" Totals: {totals}")
        postings = result["postings"]
        if postings:
            lines.append(" Chips: " + " · ".join(self._posting(p) for p in postings))
        if v.you is None:
            return lines
        mine = sum(p["amount"] for p in postings if p["account"] == f"seat:{v.you}")
        if v.you in result["winners"]:
            lines.append(v.green(" You win" + (f" {mine} chips!" if mine > 0 else "!")))
        elif mine < 0:
            lines.append(f" You pay {-mine} chips.")
        return lines

    def _posting(self, posting: Mapping[str, Any]) -> str:
        account = str(posting["account"])
        name = self.voice.seat(int(account[5:])) if account.startswith("seat:") else account
        return f"{name} {posting['amount']:+d}"
