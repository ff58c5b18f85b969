"""How Rummy Patti reads as text (its catalog entry's renderer, a
:class:`rummyhall.games.text.GameText`): the table's stakes, what each event adds to its line,
the deal, the pot and chaal after each move, and how the game ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from rummyhall.games.patti.views import PattiView, patti_view
from rummyhall.games.protocol import Event, Game, Result
from rummyhall.games.text import GameText

_PAD = " " * 10


_HOW: Final = {"last player": "everyone else packed", "show": "a show", "pot limit": "pot limit"}
"""How a game ended, in words."""


class PattiText(GameText[PattiView]):
    """The text of one Rummy Patti record (or of a terminal session's games: :attr:`number`)."""

    number = 1
    """The game's number in a terminal session (its headings say it)."""

    def narrate(self, event: Event) -> str | None:
        v = self.voice
        data = event.data
        kind = event.kind
        seat = int(data.get("seat", 0))
        if kind == "deal":
            lines = [
                "",
                v.bold(f" Game {self.number}: ")
                + f"{v.seat(data['first'])} plays first, {v.seat(data['dealer'])} deals. "
                f"Boot {data['boot']} each: pot {data['pot']}. Open card {v.card(data['open'])}.",
            ]
            if data["out"]:
                lines.append(
                    " Sitting out (not enough chips): " + ", ".join(map(v.seat, data["out"]))
                )
            return "\n".join(lines)
        if kind == "hand":
            return f" Your cards: {v.cards(data['cards'])}"
        if kind == "chaal":
            what = "chaal 2X" if data["double"] else "chaal"
            auto = " (time ran out)" if data["auto"] else ""
            return (
                " " + v.subject(seat, f"play {what}", f"plays {what}") + f" {data['amount']}{auto}"
            )
        if kind == "exchange":
            pays = f"pays {data['amount']}" + (", 2X" if data["double"] else "")
            if data["with"] == "open":
                swap = f"{v.card(data['released'])} for the open {v.card(data['took'])}"
                return " " + v.subject(seat, f"swap {swap}", f"swaps {swap}") + f" ({pays})"
            swap = "a card for the closed card"
            return " " + v.subject(seat, f"swap {swap}", f"swaps {swap}") + f" ({pays})"
        if kind == "exchanged":
            return f"   you gave up {v.card(data['released'])} and got {v.card(data['took'])}"
        if kind == "sideshow":
            asked = "you" if data["asked"] == v.you else v.seat(data["asked"])
            return (
                " "
                + v.subject(seat, f"ask {asked} for a sideshow", f"asks {asked} for a sideshow")
                + f" (pays {data['amount']})"
            )
        if kind in ("sideshow_accepted", "sideshow_refused"):
            verb = "accept" if kind == "sideshow_accepted" else "refuse"
            return " " + v.subject(seat, verb, verb + "s") + " the sideshow"
        if kind == "sideshow_cards":
            return "\n".join(
                f"   {v.seat(int(key))}: {v.cards(hand['cards'])} ({hand['class']})"
                for key, hand in data.items()
            )
        if kind == "show":
            return (
                " " + v.subject(seat, "call a show", "calls a show") + f" (pays {data['amount']})"
            )
        if kind == "pack":
            why = {
                "packed": "",
                "chips": " (not enough chips for the chaal)",
                "timeouts": " (time ran out twice)",
            }[data["why"]]
            return " " + v.subject(seat, "pack", "packs") + why
        if kind == "timeout" and data["then"] == "refuse":
            return f" {v.seat(seat)} did not answer: the sideshow is refused"
        if kind == "showdown":
            title = (
                "Pot limit reached: every hand is shown" if data["how"] == "pot limit" else "Show"
            )
            lines = ["", v.rule(title)]
            for key, cards in data["hands"].items():
                mark = v.green("  wins") if int(key) in data["winners"] else ""
                lines.append(
                    f"  {v.pad(v.seat(int(key)), 14)} {v.cards(cards)}  "
                    f"{data['classes'][key]}{mark}"
                )
            return "\n".join(lines)
        if kind == "game_over":
            return "\n".join(self._game_over_lines(data))
        return None

    def _game_over_lines(self, result: Mapping[str, Any]) -> list[str]:
        v = self.voice
        detail = result["detail"]
        seats = [int(s) for s in result["winners"]]
        winners = ", ".join("You" if s == v.you else v.seat(s) for s in seats)
        verb = "wins" if seats != [v.you] and len(seats) == 1 else "win"
        lines = [
            "",
            v.rule(f"Game {self.number} over"),
            f" {v.bold(winners)} {verb} the pot of {detail['pot']} ({_HOW[detail['how']]})",
        ]
        shares = detail["shares"]
        if len(shares) > 1:
            lines.append(
                " Equal hands share it: "
                + " · ".join(f"{v.seat(int(s))} {amount}" for s, amount in shares.items())
            )
        if v.you is not None:
            mine = int(result["points"][str(v.you)])
            lines.append(
                v.green(f" You win {mine} chips!")
                if mine > 0
                else f" You {'lose' if mine < 0 else 'break even:'} {abs(mine)} chips."
            )
        stacks = " · ".join(f"{v.seat(int(s))} {chips}" for s, chips in detail["stacks"].items())
        lines.append(" Stacks: " + stacks)
        return lines

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
