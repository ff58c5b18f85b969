"""The Rummy 51 rooms of a fresh install's lobby (economy layer: stakes and buy-ins are the room's
business, the engine's config is the game's). The catalog lists them (:attr:`PLUGIN.rooms
<rummyhall.games.rummy51.plugin.PLUGIN>`)."""

from __future__ import annotations

from typing import Final

from rummyhall.economy import tiers
from rummyhall.economy.rooms import Room, practice
from rummyhall.games.rummy51.engine import Rummy51

GAME: Final = Rummy51.name


def _room(tier_key: str, seats: int) -> Room:
    # The tier's stake and reward for victory (docs/rules/room.md); a game costs a seat at most
    # its stake, and a buy-in covers ten games.
    tier = tiers.tier(tier_key)
    return Room(
        key=f"{GAME}-{tier.stake}-{seats}p",
        game=GAME,
        title="Rummy 51",
        stake=f"{tier.stake} chips a game, the winner {tier.reward} more",
        seats=seats,
        config={"stake": tier.stake, "reward": tier.reward},
        buy_in=10 * tier.stake,
        min_stack=tier.stake,
        tier=tier_key,
    )


ROOMS: Final = (
    _room("desert", 2),
    _room("desert", 4),
    *(_room(tier.key, 4) for tier in tiers.TIERS[1:]),
    # The practice twins (practice chips; guests play only there): the lowest stakes.
    practice(_room("desert", 2)),
    practice(_room("desert", 4)),
)
"""In lobby order."""
