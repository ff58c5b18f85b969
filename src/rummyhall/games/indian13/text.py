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


class Indian13Text(GameText[Indian13View]):
    """The text of one 13-card record, read from its start (it remembers each declaration's
    finish card until its deal ends)."""

    def __init__(self) -> None:
        self.finishes: dict[int, str] = {}

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
            return f"{data['how']}, {data['score']}"
        if kind == "declaration":
            if data["valid"]:
                return "valid declaration"
            return f"wrong declaration ({data['reason']}), {data['score']}"
        if kind == "missed":
            thrown = f", {data['discarded']} thrown" if "discarded" in data else ""
            return f"missed turn {data['missed']}{thrown}"
        if kind == "removed":
            return f"removed, {data['score']}"
        if kind == "rejoin":
            return f"rejoins on {data['total']}"
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
