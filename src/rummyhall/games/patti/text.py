"""How Rummy Patti reads as text (its catalog entry's renderer, a
:class:`rummyhall.games.text.GameText`): the table's stakes, what each event adds to its line,
the deal, the pot and chaal after each move, and how the game ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rummyhall.games.patti.views import PattiView, patti_view
from rummyhall.games.protocol import Event, Game, Result
from rummyhall.games.text import GameText

_PAD = " " * 10


class PattiText(GameText[PattiView]):
    """The text of one Rummy Patti record."""

    def config_parts(self, config: Mapping[str, Any], seats: int) -> list[str]:
        parts = [
            f"{seats} seats",
            f"boot {config['boot']}, max chaal {config.get('max_chaal')}",
            f"pot limit {config.get('pot_limit')}",
        ]
        mode = config.get("mode")
        if mode == "points":
            parts.append(f"points, {config.get('point_value', 1)} chip(s) a point")
        elif isinstance(mode, str):
            parts.append(f"{mode}, entry fee {config.get('entry_fee', 0)}")
        return parts

    def note(self, event: Event) -> str | None:
        data = event.data
        kind = event.kind
        if kind == "chaal":
            return f"{'timeout: ' if data['auto'] else ''}pays {data['amount']}"
        if kind == "exchange":
            swap = f"{data['released']} for {data['took']}, " if data["with"] == "open" else ""
            return f"{swap}pays {data['amount']}"
        if kind == "exchanged":
            return f"gives {data['released']}, gets {data['took']}"
        if kind in ("sideshow", "show"):
            return f"pays {data['amount']}"
        if kind == "sideshow_cards":
            return "sees " + " vs ".join(
                f"p{seat} {' '.join(hand['cards'])} ({hand['class']})"
                for seat, hand in data.items()
            )
        if kind == "pack" and data["why"] != "packed":
            return f"p{data['seat']} packed ({data['why']})"
        if kind == "showdown":
            hands = " · ".join(
                f"p{seat} {' '.join(cards)} ({data['classes'][seat]})"
                for seat, cards in data["hands"].items()
            )
            return f"{data['how']}: {hands}"
        if kind == "game_over" and "how" in data.get("detail", {}):
            won = ", ".join(
                f"p{seat} +{amount}" for seat, amount in data["detail"]["shares"].items()
            )
            return f"pot {data['detail']['pot']} to {won}"
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
            if event.kind == "deal":
                order = " ".join(f"p{seat}" for seat in data["order"])
                lines.append(
                    f"{_PAD}order {order} · boot {data['boot']} each, pot {data['pot']} · "
                    f"open {data['open']}"
                )
                if seeds is not None:
                    lines.append(f"{_PAD}fair: {check}")
                for seat in data["order"]:
                    lines.append(f"{_PAD}p{seat} hand: {' '.join(_hand(game, seat))}")
        return lines

    def state_parts(self, view: PattiView) -> list[str]:
        parts = []
        if view.get("open"):
            parts.append(f"open {view['open'][-1]}")
        if "pot" in view and "chaal" in view:
            parts.append(f"pot {view['pot']} · chaal {view['chaal']}")
        return parts

    def ending_lines(self, result: Result) -> list[str]:
        if "how" not in result.detail:
            return []
        lines = [f"ended by: {result.detail['how']} · pot {result.detail['pot']}"]
        for key, cards in result.detail.get("shown", {}).items():
            lines.append(f"  p{key:<3} {' '.join(cards)}")
        return lines


def _hand(game: Game, seat: int) -> list[str]:
    view = patti_view(game.view(seat))
    return [] if view is None else view.get("hand", [])
