"""The rooms of the lobby: which games are offered at which stakes (DESIGN.md, principle 6: rules
are data). Each game's rooms are in its folder (``games/<name>/rooms.py``); the catalog collects
them (:func:`rummyhall.catalog.rooms`) and the server builds :class:`Rooms` from them.

A room is a game with fixed settings: the engine config every table of the room uses, how many
seats its tables have, the chips a player brings to a seat (the buy-in, moved from the wallet to
the seat's escrow account) and the chips a seat must hold for a new game to start with it. The
server builds each game's engine config from the room and the game's number at the table
(:meth:`Room.game_config`, which asks the engine: :meth:`Game.table_config
<rummyhall.games.protocol.Game.table_config>`), so consecutive games carry the stacks over and
rotate the first player where the game asks for it.

A room plays with one currency (:class:`~rummyhall.economy.ledger.Currency`): real chips, or
practice chips in the practice rooms, which anyone may play (guests only there). Every table of a
room moves chips between the wallets of that currency and no other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rummyhall.economy import ledger, tiers
from rummyhall.economy.ledger import CHIPS, PRACTICE, Currency
from rummyhall.games.protocol import game_class

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Room:
    """One stake of one game. ``config`` is the engine config shared by every game of the room's
    tables (without the fields that change from game to game)."""

    key: str
    game: str
    title: str
    stake: str
    """The stake in words, for the lobby and the table's header ("1 chip a point", "entry fee 50",
    "boot 10")."""
    seats: int
    config: Mapping[str, Any]
    buy_in: int
    min_stack: int
    tags: tuple[str, ...] = field(default=())
    currency: str = CHIPS.key
    """The chips the room plays with (a key of ``ledger.CURRENCIES``)."""
    tier: str | None = None
    """The room's tier (a key of :data:`~rummyhall.economy.tiers.TIERS`): which title opens it
    and its clover multiplier. None: a room outside the tiers, open to all, at x1.0."""

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 6:
            raise ValueError("tables seat 2 to 6 players")
        ledger.currency(self.currency)  # an unknown currency is a LedgerError here, not at a table
        if self.tier is not None:
            tiers.tier(self.tier)
        if self.min_stack <= 0 or self.buy_in < self.min_stack:
            raise ValueError("the buy-in must cover the minimum stack, which must be positive")

    def game_config(self, game_no: int, stacks: Mapping[int, int]) -> JSON:
        """The engine config of the table's game number ``game_no`` (1, 2, ...), given the chips
        each seat holds when it starts."""
        config: JSON = dict(self.config)
        config["seats"] = self.seats
        return game_class(self.game).table_config(config, game_no=game_no, stacks=stacks)

    @property
    def multiplier_tenths(self) -> int:
        """The clover multiplier of the room's games, in tenths."""
        return 10 if self.tier is None else tiers.tier(self.tier).multiplier_tenths

    @property
    def ladder(self) -> bool:
        """Whether the room's games count on the ladder (levels, boards): rooms of real chips
        only, so that free practice games cannot farm clover points."""
        return self.chips.real

    @property
    def chips(self) -> Currency:
        """The room's currency."""
        return ledger.currency(self.currency)

    def wallet(self, account_id: int) -> str:
        """The ledger account a player's chips come from when they sit here (and go back to)."""
        return self.chips.wallet(account_id)

    def to_json(self) -> JSON:
        return {
            "key": self.key,
            "game": self.game,
            "title": self.title,
            "stake": self.stake,
            "seats": self.seats,
            "buy_in": self.buy_in,
            "min_stack": self.min_stack,
            "currency": self.currency,
            "tier": self.tier,
            "config": dict(self.config),
        }


def practice(room: Room) -> Room:
    """The practice twin of a room: the same game at the same stakes, played with practice
    chips; its key is the room's with ``practice-`` in front. It is in no tier: open to
    everyone, and off the ladder."""
    return replace(room, key=f"practice-{room.key}", currency=PRACTICE.key, tier=None)


class Rooms:
    """The rooms on offer, by key, in lobby order."""

    def __init__(self, rooms: tuple[Room, ...]) -> None:
        self._rooms = {room.key: room for room in rooms}
        if len(self._rooms) != len(rooms):
            raise ValueError("room keys must be unique")

    def __iter__(self) -> Iterator[Room]:
        return iter(self._rooms.values())

    def __len__(self) -> int:
        return len(self._rooms)

    def get(self, key: str) -> Room | None:
        return self._rooms.get(key)

    def games(self) -> list[str]:
        return list(dict.fromkeys(room.game for room in self._rooms.values()))
