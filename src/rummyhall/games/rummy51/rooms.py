"""The Rummy 51 rooms of a fresh install's lobby (economy layer: stakes and buy-ins are the room's
business, the engine's config is the game's). The catalog lists them (:attr:`PLUGIN.rooms
<rummyhall.games.rummy51.plugin.PLUGIN>`)."""

from __future__ import annotations

from typing import Final

from rummyhall.economy.rooms import Room, practice
from rummyhall.games.rummy51.engine import Rummy51

GAME: Final = Rummy51.name


def _room(stake: int, seats: int) -> Room:
    # A game costs a seat at most its stake; a buy-in covers ten games.
    return Room(
        key=f"{GAME}-{stake}-{seats}p",
        game=GAME,
        title="Rummy 51",
        stake=f"{stake} chips a game",
        seats=seats,
        config={"stake": stake},
        buy_in=10 * stake,
        min_stack=stake,
    )


ROOMS: Final = (
    _room(10, 2),
    _room(10, 4),
    _room(50, 4),
    _room(200, 6),
    # The practice twins (practice chips; guests play only there): the lowest stakes.
    practice(_room(10, 2)),
    practice(_room(10, 4)),
)
"""In lobby order."""
