"""The wire models: what clients send, validated by pydantic (DESIGN.md: wire models are separate
from database models). Every WebSocket message is a JSON object with a ``type``; docs/protocol.md
describes them all with the server's answers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from rummyhall.melds import DEFAULT_PROFILE

PRINTABLE = r"^[^\x00-\x1f\x7f]*$"
"""No control characters: a client id and an action are stored in the table's log, and
PostgreSQL cannot store a NUL in text (a cid carrying one failed the log write)."""

ClientId = Annotated[str, Field(min_length=1, max_length=64, pattern=PRINTABLE)]


class _Message(BaseModel):
    """Every message and body: no unknown fields, and strict types (docs/protocol.md): a JSON
    number is an int, ``true``/``false`` a bool, a string a string, and nothing is converted
    (pydantic's lax mode would take ``"seat": "1"`` as seat 1 and ``"buy_in": true`` as 1
    chip). Both HTTP bodies and WebSocket messages are validated from parsed JSON, where
    strict mode still takes a whole JSON number for an int."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Watch(_Message):
    """Subscribe to a table (as its player if seated there, else as a spectator). ``since`` is
    the last sequence number the client saw; the answer is a snapshot of the table either way."""

    type: Literal["watch"]
    table: int
    since: int | None = None


class Unwatch(_Message):
    type: Literal["unwatch"]
    table: int


class Sit(_Message):
    type: Literal["sit"]
    table: int
    seat: int | None = None
    buy_in: int | None = Field(default=None, ge=1)
    auto_rebuy: bool = False
    """Buy back up to the buy-in from the wallet between games when the stack runs short."""
    another: bool = False
    """Sit here although the player has a seat at another table (else ``seated_elsewhere``)."""
    cid: ClientId | None = None


class Leave(_Message):
    type: Literal["leave"]
    table: int
    cid: ClientId | None = None


class Act(_Message):
    """A game action in the game's notation (docs/records.md), e.g. ``"discard 7H"``."""

    type: Literal["act"]
    table: int
    action: Annotated[str, Field(min_length=1, max_length=400, pattern=PRINTABLE)]
    cid: ClientId | None = None


class Ping(_Message):
    type: Literal["ping"]
    cid: ClientId | None = None


ClientMessage = Annotated[Watch | Unwatch | Sit | Leave | Act | Ping, Field(discriminator="type")]


# --- HTTP request bodies -----------------------------------------------------------------------


class Credentials(_Message):
    name: Annotated[str, Field(max_length=40)]
    password: Annotated[str, Field(max_length=200)]


class Registration(Credentials):
    invited_by: Annotated[str | None, Field(max_length=40)] = None
    """The name of the player whose invite link brought this one (their invite link)."""


class PasswordChange(_Message):
    old: Annotated[str, Field(max_length=200)]
    new: Annotated[str, Field(max_length=200)]


class NewTable(_Message):
    room: str
    private: bool = False


class QuickSeat(_Message):
    room: str
    auto_rebuy: bool = False
    """Buy back up to the buy-in from the wallet between games when the stack runs short."""
    another: bool = False
    """Sit here although the player has a seat at another table (else ``seated_elsewhere``)."""


class SitRequest(_Message):
    seat: int | None = None
    buy_in: int | None = Field(default=None, ge=1)
    auto_rebuy: bool = False
    """Buy back up to the buy-in from the wallet between games when the stack runs short."""
    another: bool = False
    """Sit here although the player has a seat at another table (else ``seated_elsewhere``)."""


class AutoRebuy(_Message):
    on: bool


class ArrangeRequest(_Message):
    hand: Annotated[str, Field(max_length=200)]
    joker: Annotated[str, Field(max_length=4)]
    profile: str = DEFAULT_PROFILE.name


class Grant(_Message):
    name: str
    amount: Annotated[int, Field(ge=1, le=10**12)]
    reason: Annotated[str, Field(max_length=200)] = "grant"
    currency: Literal["chips", "gold"] = "chips"
    """Silver chips (``chips``) or gold chips."""


class Purchase(_Message):
    """An order of the operator's shop: ``gold`` gold chips for the account ``name``, minted once
    per ``order_id`` (the ledger key is ``purchase:<order_id>``)."""

    order_id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
    name: Annotated[str, Field(max_length=40)]
    gold: Annotated[int, Field(ge=1, le=1_000_000)]
    reason: Annotated[str, Field(max_length=200)] = "purchase"


# --- POST /api/check (the browser's live group labels) -----------------------------------------

CardText = Annotated[str, Field(min_length=1, max_length=6)]


class CheckRequest(_Message):
    """A player's own grouping to judge: groups of cards in notation, the deal's cut card (or its
    wild rank, e.g. ``"5"``), the meld profile (a short name such as ``classic`` or a full one,
    :data:`rummyhall.melds.PROFILES`)."""

    groups: Annotated[list[Annotated[list[CardText], Field(max_length=30)]], Field(max_length=30)]
    joker: Annotated[str, Field(min_length=1, max_length=4)]
    profile: Annotated[str, Field(max_length=40)] = "classic"
