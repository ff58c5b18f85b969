"""The bot of 21-card Marriage Rummy: the rummy family's bot
(:class:`rummyhall.games.rummy.bot.RummyBot`, whose docstring says how it plays) with the
``marriage21`` meld profile and rules of thumb for 21 cards.

A Marriage declaration needs three pure sequences. The bot drops at its first turn a hand with
fewer than two pure sequences unless it holds three wild cards or more, whatever its sequence
draws: a first drop costs 30, a lost deal about 45 on average plus the value cards, and a
hand that weak rarely wins. It never drops later (the middle drop costs 70). The value cards are
all wild in Marriage, so the bot already keeps them and takes them from the open pile.

Self-play (``simulate`` with two seats of each style, then the seats swapped, 500 deals each
way) chose these numbers, in points per seat and deal: dropping every first hand with fewer than
two pure sequences beat the old rule (drop only without a wild card and with at most two
sequence draws) by 4.7; keeping such hands with three wild cards beat that by 5.0; then keeping
them with two lost 3.9 and dropping with three lost 0.4. Middle drops never came up.
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
    first_drop=(99, 99, 99),
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
