"""The bot of 13-card Indian Rummy (``indian13``): the rummy family's bot
(:class:`rummyhall.games.rummy.bot.RummyBot`, whose docstring says how it plays) for both profiles,
points tables and pools, with the rules of thumb tuned on 13 cards.

It drops a hand without a pure sequence at the first turn with no wild card, or one and few
sequence draws; from the fifth turn on with at most one wild card. About a third of the hands at
a 4-player table are dropped, which self-play found to pay (a hand without a pure sequence or a
wild card costs over 45 points on average when played out, a first drop 20).
"""

from __future__ import annotations

from typing import ClassVar, Final

from rummyhall.games.indian13.rules import PROFILE_RULES
from rummyhall.games.rummy.bot import RummyBot, Style
from rummyhall.games.rummy.views import RummyView

STYLE: Final = Style(
    take_gain=4,
    adjacent=8,
    gapped=4,
    same_rank=5,
    twin=1,
    pure_to_keep=1,
    first_drop=(99, 3),
    middle_drop=(99, 99),
    middle_drop_turn=5,
    rejoin=True,
)
"""The 13-card rules of thumb (tuned by self-play with ``rummyhall simulate``)."""


class Indian13Bot(RummyBot):
    """A 13-card Indian Rummy player for one seat."""

    game: ClassVar[str] = "indian13"
    default_style: ClassVar[Style] = STYLE

    @classmethod
    def meld_profile(cls, view: RummyView) -> str:
        """The meld profile the view's rule profile names (``classic``: ``indian13/classic``)."""
        return PROFILE_RULES[view["profile"]].melds
