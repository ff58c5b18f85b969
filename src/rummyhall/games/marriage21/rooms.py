"""The 21-card Marriage rooms of a fresh install's lobby (economy layer: stakes and buy-ins are the
room's business, the engine's config is the game's). The catalog lists them (:attr:`PLUGIN.rooms
<rummyhall.games.marriage21.plugin.PLUGIN>`)."""

from __future__ import annotations

from typing import Final

from rummyhall.economy.rooms import Room, practice
from rummyhall.games.marriage21.engine import Marriage21
from rummyhall.games.marriage21.settle import NET_CAP

GAME: Final = Marriage21.name


def _points(value: int, seats: int, tier: str) -> Room:
    # A seat loses at most the net loss cap in one deal, value cards included; it must cover
    # that, and brings two deals' worth.
    worst = NET_CAP * value
    return Room(
        key=f"{GAME}-points-{value}-{seats}p",
        game=GAME,
        title="21 cards · Marriage",
        stake=f"{value} chip{'s' if value > 1 else ''} a point",
        seats=seats,
        config={"point_value": value},
        buy_in=2 * worst,
        min_stack=worst,
        tier=tier,
    )


ROOMS: Final = (
    _points(1, 2, "desert"),
    _points(1, 4, "desert"),
    _points(1, 6, "desert"),
    _points(2, 4, "tundra"),
    _points(5, 6, "steppe"),
    _points(10, 6, "savannah"),
    _points(15, 6, "oasis"),
    _points(20, 6, "forest"),
    # The practice twins (practice chips; guests play only there): the lowest stakes.
    practice(_points(1, 2, "desert")),
    practice(_points(1, 6, "desert")),
)
"""In lobby order."""
