"""How 13-card Indian Rummy reads as text (its catalog entry's renderer, a
:class:`rummyhall.games.text.GameText`): the rules in short, what each event adds to its line,
the start and end of each deal, and the deals of a match."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rummyhall.games.indian13.views import Indian13View, indian13_view
from rummyhall.games.protocol import Event, Game
from rummyhall.games.text import GameText

_PAD = " " * 10


# The words both a replay's notes and a table's narration use.
def _drop(data: Mapping[str, Any]) -> str:
    return f"{data['how']}, {data['score']} points"


def _wrong(data: Mapping[str, Any]) -> str:
    return f"wrong declaration ({data['reason']}), {data['score']} points"


def _rejoin(data: Mapping[str, Any]) -> str:
    return f"on {data['total']} points"


class Indian13Text(GameText[Indian13View]):
    """The text of one 13-card record, read from its start (it remembers each declaration's
    finish card until its deal ends)."""

    def __init__(self) -> None:
        self.finishes: dict[int, str] = {}
        self.wild: str | None = None
        """The wild rank :meth:`narrate` marks (the terminal table sets it from its view)."""

    def config_parts(self, config: Mapping[str, Any], seats: int) -> list[str]:
        parts = []
        if "profile" in config:
            parts.append(str(config["profile"]))
        parts.append(f"{seats} seats")
        mode = config.get("mode")
        if mode == "points":
            parts.append(f"points, {config.get('point_value', 1)} chip(s) a point")
        elif isinstance(mode, str):
            parts.append(f"{mode}, entry fee {config.get('entry_fee', 0)}")
            if config.get("rake_percent"):
                parts.append(f"rake {config['rake_percent']}%")
        return parts

    def note(self, event: Event) -> str | None:
        data = event.data
        kind = event.kind
        if kind == "draw" and data.get("from") == "open":
            return f"takes {data['card']}"
        if kind == "drew":
            return f"gets {data['card']}"
        if kind == "drop":
            return _drop(data)
        if kind == "declaration":
            if data["valid"]:
                return "valid declaration"
            return _wrong(data)
        if kind == "missed":
            thrown = f", {data['discarded']} thrown" if "discarded" in data else ""
            return f"missed turn {data['missed']}{thrown}"
        if kind == "removed":
            return f"removed, {data['score']}"
        if kind == "rejoin":
            return f"rejoins {_rejoin(data)}"
        if kind == "reshuffle":
            return f"closed deck refilled: {data['closed']} cards"
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
            data = event.data
            if event.kind == "toss":
                cards = ", ".join(f"p{seat} {card}" for seat, card in data["cards"])
                order = " ".join(f"p{seat}" for seat in data["order"])
                lines.append(f"{_PAD}toss: {cards} -> order {order}")
            elif event.kind == "deal":
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
                    view = indian13_view(game.view(seat))
                    hand = [] if view is None else view.get("hand", [])
                    lines.append(f"{_PAD}p{seat} hand: {' '.join(hand)}")
        return lines

    def state_parts(self, view: Indian13View) -> list[str]:
        parts = []
        if view.get("open"):
            parts.append(f"open {view['open'][-1]}")
        if "closed" in view and view.get("phase") not in ("between", "over", "start"):
            parts.append(f"closed {view['closed']}")
        return parts

    def after_lines(self, events: Sequence[Event]) -> list[str]:
        lines = []
        for event in events:
            if event.kind == "declaration" and "finish" in event.data:
                self.finishes[int(event.data["seat"])] = str(event.data["finish"])
            if event.kind == "deal_end":
                lines += self._deal_end_lines(event.data)
                self.finishes = {}
        return lines

    def _deal_end_lines(self, data: Mapping[str, Any]) -> list[str]:
        finishes = self.finishes
        lines = [f"{_PAD}deal {data['deal']} over: p{data['winner']} wins"]
        for key, score in data["scores"].items():
            how = data.get("how", {}).get(key) or ""
            shown = data.get("shown", {}).get(key)
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
        return lines

    def history_lines(self, game: Game) -> list[str]:
        """Per-seat points of each deal; a pool as a table of scores and running totals."""
        lines: list[str] = []
        result = game.result
        if result is not None and "deals" in result.detail:
            history = list(result.detail["deals"])
        else:
            view = indian13_view(game.view(None))
            history = [] if view is None else list(view["history"])
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
                    how = deal.get("how", {}).get(key) or ""
                    if int(key) in deal.get("deal_show", []):
                        how += " (deal show)"
                    lines.append(f"  p{key:<3} {score:>4}  {how}")
        return lines

    # --- at a table (the terminal) ----------------------------------------------------------

    def narrate(self, event: Event) -> str | None:
        v = self.voice
        wild = self.wild
        data = event.data
        kind = event.kind
        # A private event (the closed card drawn) names no seat: it is the seat it is shown to.
        seat = int(data.get("seat", min(event.to) if event.to else 0))
        if kind == "toss":
            cards = " · ".join(f"{v.seat(s)} {v.card(c)}" for s, c in data["cards"])
            order = ", ".join(f"p{s}" for s in data["order"])
            return f" Toss: {cards} → order {order}"
        if kind == "deal":
            lines = [
                "",
                v.bold(f" Deal {data['deal']}: ")
                + f"{v.seat(data['first'])} moves first. Cut joker {v.card(data['cut'], wild)}"
                f" (wild rank {data['wild_rank']}), open card {v.card(data['open'], wild)}.",
            ]
            return "\n".join(lines)
        if kind == "draw":
            if data["from"] == "open":
                card = v.card(data["card"], wild)
                return " " + v.subject(
                    seat, f"take {card} from the open pile", f"takes {card} from the open pile"
                )
            return (
                None if seat == v.you else " " + v.subject(seat, "", "draws from the closed deck")
            )
        if kind == "drew":
            card = v.card(data["card"], wild)
            return " " + v.subject(
                seat, f"draw {card} from the closed deck", f"draws {card} from the closed deck"
            )
        if kind == "discard":
            card = v.card(data["card"], wild)
            return " " + v.subject(seat, f"discard {card}", f"discards {card}")
        if kind == "drop":
            text = f"({_drop(data)})"
            return " " + v.subject(seat, f"drop {text}", f"drops {text}")
        if kind == "declaration":
            if data["valid"]:
                groups = v.groups(data["groups"], wild)
                return (
                    " "
                    + v.subject(seat, "declare", "declares")
                    + v.green(" — valid!")
                    + f"\n    {groups}   finish {v.card(data['finish'], wild)}"
                )
            text = f" — {_wrong(data)}"
            line = " " + v.subject(seat, "declare", "declares") + v.red(text)
            if "groups" in data:
                line += f"\n    {v.groups(data['groups'], wild)}"
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
            return f" New closed deck: {data['closed']} cards."
        if kind == "rejoin":
            return " " + v.subject(seat, "rejoin", "rejoins") + f" {_rejoin(data)}"
        return None

    def deal_end_lines(self, data: Mapping[str, Any], view: Indian13View) -> list[str]:
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
        entries = {entry["seat"]: entry for entry in view["seats"]}
        for seat_text, score in sorted(data["scores"].items(), key=lambda item: int(item[0])):
            seat = int(seat_text)
            how = data["how"].get(seat_text) or ""
            if seat in data.get("deal_show", []):
                how += " (deal show)"
            row = "  " + v.pad(v.seat(seat), 14) + v.rpad(str(score), 7) + "  " + v.pad(how, 18)
            if pool:
                row += v.rpad(str(totals.get(seat_text, "")), 7)
                if seat in data.get("eliminated", []):
                    row += v.red("  out")
            lines.append(v.bold(row) if seat == v.you else row)
            shown = data["shown"].get(seat_text)
            if shown:
                groups = v.groups(shown, wild)
                entry = entries.get(seat)
                finish = None if entry is None else entry.get("finish")
                extra = v.dim(f"   finish {v.card(finish, wild)}") if finish else ""
                lines.append(f"      {groups}{extra}")
        return lines

    def game_over_lines(self, view: Indian13View) -> list[str]:
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
