"""Meld kinds, rule profiles and the optimal-arrangement solver of the Indian-rummy family.

``arrange(hand, joker=..., profile=...)`` finds the best arrangement of a hand;
``check(groups, joker=..., profile=...)`` judges a player's own grouping;
``hint(hand, joker=..., profile=...)`` is the best partial arrangement for a beginner.
docs/melds.md defines all three.
"""

from rummyhall.melds.arrangement import Arrangement
from rummyhall.melds.hints import Hint, HintGroup, Role, ShapeDistance, hint
from rummyhall.melds.kinds import Group, Kind, Verdict, check, classify
from rummyhall.melds.profiles import (
    DEFAULT_PROFILE,
    INDIAN13_CLASSIC,
    INDIAN13_VENGALA,
    MARRIAGE21,
    PROFILES,
    Profile,
    Wilds,
    get_profile,
)
from rummyhall.melds.solver import arrange

__all__ = [
    "DEFAULT_PROFILE",
    "INDIAN13_CLASSIC",
    "INDIAN13_VENGALA",
    "MARRIAGE21",
    "PROFILES",
    "Arrangement",
    "Group",
    "Hint",
    "HintGroup",
    "Kind",
    "Profile",
    "Role",
    "ShapeDistance",
    "Verdict",
    "Wilds",
    "arrange",
    "check",
    "classify",
    "get_profile",
    "hint",
]
