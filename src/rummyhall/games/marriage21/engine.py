"""21-card Marriage Rummy: the shared rummy engine (:mod:`rummyhall.games.rummy.engine`) with the
Marriage numbers (three packs, 21 cards each, drops 30 / 70, a wrong declaration 120), its
winning and 2-point shapes (the solver's ``marriage21`` meld profile judges them) and its
settlement: value cards and marriages paid between the seats still in the deal, and the net loss
cap (:mod:`rummyhall.games.marriage21.settle`).

The rules are docs/rules/marriage-21.md; the numbers and the config live in
:mod:`rummyhall.games.marriage21.rules`. Where the rules say nothing, the engine decides so (and
docs/rules/marriage-21.md says it in words):

* a deal is a game: one deal for points at the table's point value, then the next game;
* a wrong declaration costs 120 and play goes on without the declarer, as in 13-card rummy; the
  declarer still exchanges value cards at the end (the rules say so), with the 21 cards they held;
* the value cards a seat holds are counted among its 21 cards at the end of the deal (the finish
  card is not one of them); a seat that dropped or was removed exchanges nothing;
* a loser who shows a 2-point shape, or whose groups leave nothing to count, loses 2 points;
  a loser who never had a turn loses half of that, at least 2 and at most 60 (the deal show).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rummyhall.cards import Card, from_code
from rummyhall.games.marriage21.rules import Marriage21Config
from rummyhall.games.marriage21.settle import Holding, settle
from rummyhall.games.protocol import DEFAULT_VIEWS, Event, Posting, Result, ViewShape
from rummyhall.games.rummy.engine import DROPPED, REMOVED, SHOWN, WON, WRONG, RummyGame
from rummyhall.games.rummy.views import DealSummary, RummyView
from rummyhall.melds import Verdict


class Marriage21(RummyGame):
    """21-card Marriage Rummy."""

    name: ClassVar[str] = "marriage21"
    view_shape: ClassVar[ViewShape] = ViewShape(past=DEFAULT_VIEWS.past | {"value_cards"})
    """The value cards follow from the cut card: a fact of the deal, not cards in play."""

    def __init__(self, config: Marriage21Config | None = None) -> None:
        self.marriage = config or Marriage21Config()
        super().__init__(self.marriage)

    @classmethod
    def create(cls, config: Mapping[str, Any]) -> Marriage21:
        return cls(Marriage21Config.from_json(config))

    # --- what Marriage scores differently ------------------------------------------------------

    def _complete(self, verdict: Verdict) -> bool:
        # The 2-point shapes (three pure sequences and the rest melded, six dublees, seven wild
        # cards in one group), not merely a winning shape: three tunnelas with loose cards
        # still pay for the loose cards.
        return verdict.two_point

    def holding(self, cards: list[Card]) -> Holding:
        """The value cards among ``cards`` (copies of the cut, upper and lower jokers)."""
        assert self.wilds is not None and self.wilds.value_codes is not None
        cut, upper, lower = self.wilds.value_codes
        codes = [card.code for card in cards]
        return Holding(cut=codes.count(cut), upper=codes.count(upper), lower=codes.count(lower))

    def _summarize(self, summary: DealSummary) -> None:
        assert self.winner is not None
        winner = self.winner
        scores = summary["scores"]
        losses = {int(seat): points for seat, points in scores.items() if int(seat) != winner}
        holdings: dict[int, Holding] = {}
        for seat in self.deal_order:
            player = self.players[seat]
            if player.status in (WON, SHOWN):
                holdings[seat] = self.holding(player.hand)
            elif player.status == WRONG:
                holdings[seat] = self.holding(player.held)
            else:
                assert player.status in (DROPPED, REMOVED), player.status
        values = self.marriage.values
        settlement = settle(winner, losses, holdings, scores=values, net_cap=self.marriage.net_cap)
        summary["values"] = {
            str(seat): {
                "cut": held.cut,
                "upper": held.upper,
                "lower": held.lower,
                "marriages": held.marriages,
                "worth": settlement.worth[seat],
            }
            for seat, held in holdings.items()
        }
        summary["settlement"] = {
            str(seat): {
                "cards": line.cards,
                "received": line.value_received,
                "given": line.value_given,
                "cap_relief": line.cap_relief,
                "cap_shortfall": line.cap_shortfall,
                "net": line.net,
            }
            for seat, line in settlement.seats.items()
        }

    def _finish_points(self, winner: int, scores: Mapping[int, int], events: list[Event]) -> None:
        """The deal's result: each seat's net (card points, value cards, caps), in chips at the
        table's point value."""
        # The deal's summary (just published, :meth:`_summarize`) holds every seat's net.
        nets = {int(seat): line["net"] for seat, line in self.history[-1]["settlement"].items()}
        value = self.config.point_value
        postings = tuple(Posting(f"seat:{seat}", net * value) for seat, net in nets.items() if net)
        self._over(
            Result(
                points={s: nets.get(s, 0) for s in self.players},
                winners=(winner,),
                postings=postings,
                detail={"deals": list(self.history)},
            ),
            events,
        )

    # --- views -------------------------------------------------------------------------------

    def _viewer_view(self, public: RummyView, seat: int | None) -> RummyView:
        data = super()._viewer_view(public, seat)
        wilds = self.wilds
        codes = () if wilds is None or wilds.value_codes is None else wilds.value_codes
        data["value_cards"] = [str(from_code(code)) for code in codes]
        return data
