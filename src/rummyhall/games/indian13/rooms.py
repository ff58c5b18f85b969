"""The 13-card rooms of a fresh install's lobby (economy layer: stakes and buy-ins are the room's
business, the engine's config is the game's). The catalog lists them (:attr:`PLUGIN.rooms
<rummyhall.games.indian13.plugin.PLUGIN>`)."""

from __future__ import annotations

from typing import Final

from rummyhall.economy.rooms import Room, practice
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import COMMON

GAME: Final = Indian13.name

MAX_POINTS: Final = COMMON.cap
"""The most points a 13-card loser pays (the cap of both profiles)."""


def _points(profile: str, value: int, seats: int, tier: str) -> Room:
    # A loser pays at most the cap; a seat must cover that, and brings two deals' worth.
    worst = MAX_POINTS * value
    return Room(
        key=f"{GAME}-{profile}-points-{value}-{seats}p",
        game=GAME,
        title=f"13 cards · points ({profile})",
        stake=f"{value} chip{'s' if value > 1 else ''} a point",
        seats=seats,
        config={"profile": profile, "mode": "points", "point_value": value},
        buy_in=2 * worst,
        min_stack=worst,
        tier=tier,
    )


def _pool(mode: str, fee: int, seats: int, tier: str) -> Room:
    # The fee is paid when the pool starts and again for each rejoin: bring room for one rejoin.
    return Room(
        key=f"{GAME}-{mode}-{fee}-{seats}p",
        game=GAME,
        title=f"13 cards · pool {mode.removeprefix('pool')}",
        stake=f"entry fee {fee}",
        seats=seats,
        config={"profile": "classic", "mode": mode, "entry_fee": fee, "rake_percent": 10},
        buy_in=2 * fee,
        min_stack=fee,
        tier=tier,
    )


ROOMS: Final = (
    _points("classic", 1, 2, "desert"),
    _points("classic", 1, 6, "desert"),
    _points("vengala", 1, 4, "desert"),
    _pool("pool101", 50, 2, "desert"),
    _pool("pool101", 50, 6, "desert"),
    _points("classic", 2, 6, "tundra"),
    _points("classic", 5, 6, "steppe"),
    _pool("pool201", 100, 6, "steppe"),
    _points("classic", 10, 6, "savannah"),
    _points("classic", 15, 6, "oasis"),
    _points("classic", 20, 6, "forest"),
    # The practice twins (practice chips; guests play only there): the lowest stakes.
    practice(_points("classic", 1, 2, "desert")),
    practice(_points("classic", 1, 6, "desert")),
    practice(_pool("pool101", 50, 2, "desert")),
    practice(_pool("pool101", 50, 6, "desert")),
)
"""In lobby order."""
