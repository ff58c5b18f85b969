"""What a finished game is worth on the ladder: clover points (which make the levels) and rating
points (which make the rating), from how a seat finished (:class:`~rummyhall.games.protocol.
Standing`) and the room's tier. Pure arithmetic on integers; the store keeps the sums
(:mod:`rummyhall.store.progress`). Source: the Rummy 51 page's second part and DECISIONS.md;
docs/progression.md says it in our words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rummyhall.games.protocol import Standing

PLACE_POINTS: Final = (80, 65, 50, 35)
"""Points for places 1-4; every place below the fourth gets the fourth's."""
CARD_THROWN: Final = 1
OPENED: Final = 5
MAX_RATING_POINTS: Final = 100
"""What one game adds to the rating at most."""
RATED_AFTER: Final = 20
"""Games a player must have played to be rated."""


@dataclass(frozen=True, slots=True)
class Ladder:
    """The numbers of the ladder an operator may tune (DESIGN.md, principle 6)."""

    rummy_bonus: int = 10
    """What going out in the turn of opening (a "Rummy") adds; the page leaves it open."""
    level_gold: int = 5
    """Gold chips for each level reached..."""
    title_gold: int = 50
    """... and on top of that for each new title."""


LADDER: Final = Ladder()


def game_points(standing: Standing, ladder: Ladder = LADDER) -> int:
    """The points of one game before the room's multiplier: the place, one per card thrown, the
    opening and a Rummy."""
    place = PLACE_POINTS[min(standing.place, len(PLACE_POINTS)) - 1]
    return (
        place
        + CARD_THROWN * standing.cards_thrown
        + (OPENED if standing.opened else 0)
        + (ladder.rummy_bonus if standing.rummy else 0)
    )


def clover(standing: Standing, multiplier_tenths: int, ladder: Ladder = LADDER) -> int:
    """Clover points of one game in a room of that multiplier (tenths: 22 is x2.2), rounded
    down: 80 in Tundra is 176."""
    return game_points(standing, ladder) * multiplier_tenths // 10


def rating_points(standing: Standing, ladder: Ladder = LADDER) -> int:
    """What one game adds to the rating's sum: its points without the multiplier, at most 100."""
    return min(MAX_RATING_POINTS, game_points(standing, ladder))


def rating(points: int, games: int) -> int | None:
    """The rating of ``points`` earned over ``games`` games: points per game in hundredths of a
    point (floor(points x 10000 / (games x 100))); None below :data:`RATED_AFTER` games."""
    if games < RATED_AFTER:
        return None
    return points * 10_000 // (games * 100)
