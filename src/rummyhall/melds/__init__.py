"""Meld kinds, rule profiles and the optimal-arrangement solver of the Indian-rummy family.

``arrange(hand, joker=..., profile=...)`` finds the best arrangement of a hand;
``check(groups, joker=..., profile=...)`` judges a player's own grouping.
docs/melds.md defines both.
"""

from rummyhall.melds.kinds import Group, Kind, Verdict, check, classify
from rummyhall.melds.profiles import (
    INDIAN13_CLASSIC,
    INDIAN13_VENGALA,
    MARRIAGE21,
    PROFILES,
    Profile,
    Wilds,
    get_profile,
)
from rummyhall.melds.solver import Arrangement, arrange

__all__ = [
    "INDIAN13_CLASSIC",
    "INDIAN13_VENGALA",
    "MARRIAGE21",
    "PROFILES",
    "Arrangement",
    "Group",
    "Kind",
    "Profile",
    "Verdict",
    "Wilds",
    "arrange",
    "check",
    "classify",
    "get_profile",
]
