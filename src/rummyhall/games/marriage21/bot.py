"""The bot of 21-card Marriage Rummy: the rummy family's bot
(:class:`rummyhall.games.rummy.bot.RummyBot`, whose docstring says how it plays) with the
``marriage21`` meld profile and rules of thumb for 21 cards.

A Marriage declaration needs three pure sequences, and a hand holds about three wild cards, so
the bot drops less readily than at 13 cards: only a first hand with fewer than two pure
sequences and no wild card, or, later, one still without two pure sequences or a wild card.
Dropping also gives up the value-card exchange, which the bot's wild and value cards would win.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rummyhall.games.rummy.bot import RummyBot, Style
from rummyhall.games.rummy.views import RummyView

STYLE: Final = Style(
    take_gain=4,
    adjacent=8,
    gapped=4,
    same_rank=5,
    twin=3,  # an identical card is a dublee, and with a third a tunnela: a pure sequence
    pure_to_keep=2,
    first_drop=(2,),
    middle_drop=(99,),
    middle_drop_turn=6,
    rejoin=False,
)
"""The Marriage rules of thumb (checked by self-play with ``rummyhall simulate --game
marriage21``)."""


class Marriage21Bot(RummyBot):
    """A 21-card Marriage Rummy player for one seat."""

    game: ClassVar[str] = "marriage21"
    default_style: ClassVar[Style] = STYLE

    @classmethod
    def meld_profile(cls, view: RummyView) -> str:
        return "marriage21"
