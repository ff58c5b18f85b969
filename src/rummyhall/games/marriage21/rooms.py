"""The 21-card Marriage rooms of a fresh install's lobby (economy layer: stakes and buy-ins are the
room's business, the engine's config is the game's). The catalog lists them (:attr:`PLUGIN.rooms
<rummyhall.games.marriage21.plugin.PLUGIN>`)."""

from __future__ import annotations

from typing import Final

from rummyhall.economy.rooms import Room, practice
from rummyhall.games.marriage21.engine import Marriage21
from rummyhall.games.marriage21.settle import NET_CAP

GAME: Final = Marriage21.name


def _points(value: int, seats: int) -> Room:
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
    )


ROOMS: Final = (
    _points(1, 2),
    _points(1, 4),
    _points(1, 6),
    _points(5, 6),
    # The practice twins (practice chips; guests play only there): the lowest stakes.
    practice(_points(1, 2)),
    practice(_points(1, 6)),
)
"""In lobby order."""
