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

A room plays with one currency (:class:`~rummyhall.economy.ledger.Currency`): real chips (silver),
practice chips in the practice rooms, which anyone may play (guests only there), or gold chips in
the gold twins of the silver rooms (:func:`gold`). Every table of a room moves chips between the
wallets of that currency and no other.

Every room of silver chips has a gold twin, made here once for every game
(:func:`with_gold_twins`, which the catalog applies to each game's rooms): a player sits at the
silver tables of a room while their silver covers its minimum stack and at its gold tables once it
does not (docs/rules/room.md, "Our decisions on winnings"; the server's quick seat chooses).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rummyhall.economy import ledger, tiers
from rummyhall.economy.ledger import CHIPS, GOLD, PRACTICE, Currency
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


GOLD_PREFIX = "gold-"
"""The start of a gold twin's key: ``gold-<the silver room's key>``."""


def gold(room: Room) -> Room:
    """The gold twin of a room of silver chips: the same game at the same stakes, in the same
    tier (the same lock and clover multiplier; its games count on the ladder like the silver
    room's), played with gold chips; its key is the room's with ``gold-`` in front. ValueError
    for a room of another currency (only silver rooms have a gold twin)."""
    if room.currency != CHIPS.key:
        raise ValueError(f"room {room.key!r} plays {room.currency}: only silver rooms have a twin")
    return replace(room, key=f"{GOLD_PREFIX}{room.key}", currency=GOLD.key)


def with_gold_twins(rooms: Iterable[Room]) -> tuple[Room, ...]:
    """``rooms``, then the gold twin of each of their silver rooms (in the same order), but for a
    twin that ``rooms`` already holds."""
    given = tuple(rooms)
    keys = {room.key for room in given}
    twins = (gold(room) for room in given if room.currency == CHIPS.key)
    return (*given, *(twin for twin in twins if twin.key not in keys))


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

    def gold_of(self, room: Room) -> Room | None:
        """The gold twin of a silver room, if it is on offer (None for a room of any other
        currency, or without its twin)."""
        if room.currency != CHIPS.key:
            return None
        twin = self._rooms.get(GOLD_PREFIX + room.key)
        return twin if twin is not None and twin.currency == GOLD.key else None

    def games(self) -> list[str]:
        return list(dict.fromkeys(room.game for room in self._rooms.values()))
