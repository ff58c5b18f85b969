"""How Rummy Patti reads as text (its catalog entry's renderer, a
:class:`rummyhall.games.text.GameText`): the table's stakes, what each event adds to its line,
the deal, the pot and chaal after each move, and how the game ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from rummyhall.games.patti.events import (
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
)
from rummyhall.games.patti.views import PattiView, patti_view
from rummyhall.games.protocol import Event, Game, Result, data_of
from rummyhall.games.protocol_views import ResultView
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
        kind = event.kind
        if kind == "deal":
            deal = data_of(event, DealEvent)
            lines = [
                "",
                v.bold(f" Game {self.number}: ")
                + f"{v.seat(deal['first'])} plays first, {v.seat(deal['dealer'])} deals. "
                f"Boot {deal['boot']} each: pot {deal['pot']}. Open card {v.card(deal['open'])}.",
            ]
            if deal["out"]:
                lines.append(
                    " Sitting out (not enough chips): " + ", ".join(map(v.seat, deal["out"]))
                )
            return "\n".join(lines)
        if kind == "hand":
            return f" Your cards: {v.cards(data_of(event, HandEvent)['cards'])}"
        if kind == "chaal":
            chaal = data_of(event, ChaalEvent)
            seat = chaal["seat"]
            what = "chaal 2X" if chaal["double"] else "chaal"
            auto = " (time ran out)" if chaal["auto"] else ""
            return (
                " " + v.subject(seat, f"play {what}", f"plays {what}") + f" {chaal['amount']}{auto}"
            )
        if kind == "exchange":
            exchange = data_of(event, ExchangeEvent)
            seat = exchange["seat"]
            pays = f"pays {exchange['amount']}" + (", 2X" if exchange["double"] else "")
            if exchange["with"] == "open":
                swap = f"{v.card(exchange['released'])} for the open {v.card(exchange['took'])}"
                return " " + v.subject(seat, f"swap {swap}", f"swaps {swap}") + f" ({pays})"
            swap = "a card for the closed card"
            return " " + v.subject(seat, f"swap {swap}", f"swaps {swap}") + f" ({pays})"
        if kind == "exchanged":
            swapped = data_of(event, ExchangedEvent)
            return f"   you gave up {v.card(swapped['released'])} and got {v.card(swapped['took'])}"
        if kind == "sideshow":
            sideshow = data_of(event, SideshowEvent)
            seat = sideshow["seat"]
            asked = "you" if sideshow["asked"] == v.you else v.seat(sideshow["asked"])
            return (
                " "
                + v.subject(seat, f"ask {asked} for a sideshow", f"asks {asked} for a sideshow")
                + f" (pays {sideshow['amount']})"
            )
        if kind in ("sideshow_accepted", "sideshow_refused"):
            seat = data_of(event, SideshowAnswerEvent)["seat"]
            verb = "accept" if kind == "sideshow_accepted" else "refuse"
            return " " + v.subject(seat, verb, verb + "s") + " the sideshow"
        if kind == "sideshow_cards":
            return "\n".join(
                f"   {v.seat(int(key))}: {v.cards(hand['cards'])} ({hand['class']})"
                for key, hand in data_of(event, SideshowCardsEvent).items()
            )
        if kind == "show":
            show = data_of(event, ShowEvent)
            return (
                " "
                + v.subject(show["seat"], "call a show", "calls a show")
                + f" (pays {show['amount']})"
            )
        if kind == "pack":
            pack = data_of(event, PackEvent)
            why = {
                "packed": "",
                "chips": " (not enough chips for the chaal)",
                "timeouts": " (time ran out twice)",
            }[pack["why"]]
            return " " + v.subject(pack["seat"], "pack", "packs") + why
        if kind == "timeout":
            timeout = data_of(event, TimeoutEvent)
            if timeout["then"] == "refuse":
                return f" {v.seat(timeout['seat'])} did not answer: the sideshow is refused"
            return None
        if kind == "showdown":
            showdown = data_of(event, ShowdownEvent)
            title = (
                "Pot limit reached: every hand is shown"
                if showdown["how"] == "pot limit"
                else "Show"
            )
            lines = ["", v.rule(title)]
            for key, cards in showdown["hands"].items():
                mark = v.green("  wins") if int(key) in showdown["winners"] else ""
                lines.append(
                    f"  {v.pad(v.seat(int(key)), 14)} {v.cards(cards)}  "
                    f"{showdown['classes'][key]}{mark}"
                )
            return "\n".join(lines)
        if kind == "game_over":
            return "\n".join(self._game_over_lines(data_of(event, ResultView)))
        return None

    def _game_over_lines(self, result: ResultView) -> list[str]:
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
        kind = event.kind
        if kind == "chaal":
            chaal = data_of(event, ChaalEvent)
            return f"{'timeout: ' if chaal['auto'] else ''}pays {chaal['amount']}"
        if kind == "exchange":
            exchange = data_of(event, ExchangeEvent)
            swap = (
                f"{exchange['released']} for {exchange['took']}, "
                if exchange["with"] == "open"
                else ""
            )
            return f"{swap}pays {exchange['amount']}"
        if kind == "exchanged":
            swapped = data_of(event, ExchangedEvent)
            return f"gives {swapped['released']}, gets {swapped['took']}"
        if kind == "sideshow":
            return f"pays {data_of(event, SideshowEvent)['amount']}"
        if kind == "show":
            return f"pays {data_of(event, ShowEvent)['amount']}"
        if kind == "sideshow_cards":
            return "sees " + " vs ".join(
                f"p{seat} {' '.join(hand['cards'])} ({hand['class']})"
                for seat, hand in data_of(event, SideshowCardsEvent).items()
            )
        if kind == "pack":
            pack = data_of(event, PackEvent)
            return None if pack["why"] == "packed" else f"p{pack['seat']} packed ({pack['why']})"
        if kind == "showdown":
            showdown = data_of(event, ShowdownEvent)
            hands = " · ".join(
                f"p{seat} {' '.join(cards)} ({showdown['classes'][seat]})"
                for seat, cards in showdown["hands"].items()
            )
            return f"{showdown['how']}: {hands}"
        if kind == "game_over":
            result = data_of(event, ResultView)
            if "how" not in result["detail"]:
                return None
            won = ", ".join(
                f"p{seat} +{amount}" for seat, amount in result["detail"]["shares"].items()
            )
            return f"pot {result['detail']['pot']} to {won}"
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
            if event.kind == "deal":
                deal = data_of(event, DealEvent)
                order = " ".join(f"p{seat}" for seat in deal["order"])
                lines.append(
                    f"{_PAD}order {order} · boot {deal['boot']} each, pot {deal['pot']} · "
                    f"open {deal['open']}"
                )
                if seeds is not None:
                    lines.append(f"{_PAD}fair: {check}")
                for seat in deal["order"]:
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
