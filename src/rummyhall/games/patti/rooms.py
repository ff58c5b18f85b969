"""The Rummy Patti rooms of a fresh install's lobby (economy layer: stakes and buy-ins are the
room's business, the engine's config is the game's). The catalog lists them (:attr:`PLUGIN.rooms
<rummyhall.games.patti.plugin.PLUGIN>`)."""

from __future__ import annotations

from typing import Final

from rummyhall.economy.rooms import Room, practice
from rummyhall.games.patti.engine import Patti

GAME: Final = Patti.name


def _room(boot: int, seats: int, tier: str) -> Room:
    return Room(
        key=f"{GAME}-{boot}-{seats}p",
        game=GAME,
        title="Rummy Patti",
        stake=f"boot {boot}",
        seats=seats,
        config={"boot": boot},
        buy_in=200 * boot,
        min_stack=10 * boot,
        tier=tier,
    )


ROOMS: Final = (
    _room(10, 4, "desert"),
    _room(10, 5, "desert"),
    _room(20, 5, "tundra"),
    _room(50, 5, "steppe"),
    _room(100, 5, "savannah"),
    _room(500, 5, "oasis"),
    _room(1000, 5, "forest"),
    # The practice twins (practice chips; guests play only there).
    practice(_room(10, 4, "desert")),
    practice(_room(10, 5, "desert")),
)
"""In lobby order."""
