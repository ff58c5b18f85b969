"""Who paid whom: the chips that went from player to player in settled games, and the largest
one-way flows between pairs of accounts (issue 15: losing on purpose at a private table passed a
guest's chips to a real account; this is where collusion and chip dumping show).

The ledger moves chips between wallets, seats, pots and the house; it does not say that the chips
Asha lost went to Ravi. So when a game settles, the table records that too, in the same
transaction as the game's record (``chip_flows``, one row per paying pair):

**The attribution rule.** Each seat's *net* for the game is what it got back minus what it paid,
over every posting of the game (boots, bets, entry fees, rejoins and the result); losers have a
negative net, winners a positive one. The chips that reached the winners, ``T`` = the sum of the
winners' nets (the losers' losses minus the house's rake), are attributed in two steps:

1. Each loser's share of ``T`` is in proportion to its loss (without rake, it *is* its loss).
2. A loser's share goes to the winners in proportion to their wins: loser ``i`` pays winner
   ``j`` the share ``a_i`` times ``w_j / T``.

Both steps round exactly, so every loser pays exactly its share and every winner receives exactly
its win: amounts are rounded down, and the chips left over go one each to the largest remainders
(the largest remainder method), in the second step skipping a pair that would take a loser or a
winner past its total (and, if a choice leaves some total unreachable, trying the next: a tiny
search, as a table has at most six seats). Ties go to the earlier seat. With one loser or one
winner (most games) there is nothing to round.

``rummyhall audit --flows`` lists the pairs with the largest net flow one way (A to B minus B to
A), with the games they played together and how much of it moved at private tables.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TextIO, TypeVar

from sqlalchemy import bindparam, case, distinct, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from rummyhall.economy.ledger import CHIPS
from rummyhall.store.bulk import Document, Step, by_dialect, sqlite_value
from rummyhall.store.models import (
    AccountModel,
    ChipFlowModel,
    GameTableModel,
    HandModel,
    HandPlayerModel,
    UTCDateTime,
    utcnow,
)

K = TypeVar("K", bound=Hashable)


# --- the attribution rule -----------------------------------------------------------------------


def _apportion(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (positive), by the largest remainder method;
    ties to the earlier weight."""
    whole = sum(weights)
    shares, remainders = [], []
    for index, weight in enumerate(weights):
        share, remainder = divmod(total * weight, whole)
        shares.append(share)
        remainders.append((-remainder, index))
    for _, index in sorted(remainders)[: total - sum(shares)]:
        shares[index] += 1
    return shares


def _round_up(
    remainders: Sequence[tuple[int, int, int]],
    rows: list[int],
    cols: list[int],
    picked: list[tuple[int, int]],
    start: int,
    left: int,
) -> bool:
    """Pick ``left`` cells (i, j) of ``remainders`` from ``start`` on, largest remainder first,
    to round up by one chip each, so that every row and column gets exactly its ``rows[i]`` and
    ``cols[j]`` more (both updated, and ``picked`` extended, when it succeeds). A function of its
    own, not a closure: a closure that calls itself holds itself through its cell, a reference
    cycle per settled game for the cycle collector to find."""
    if left == 0:
        return True
    for index in range(start, len(remainders)):
        _, i, j = remainders[index]
        if rows[i] and cols[j]:
            rows[i] -= 1
            cols[j] -= 1
            picked.append((i, j))
            if _round_up(remainders, rows, cols, picked, index + 1, left - 1):
                return True
            rows[i] += 1
            cols[j] += 1
            picked.pop()
    return False


def attribute(nets: Mapping[K, int]) -> list[tuple[K, K, int]]:
    """Who paid whom in one game, from each participant's net (chips won, or lost if negative),
    by the rule in the module docstring. ``nets`` in seat order (ties go to the earlier); returns
    ``(payer, payee, amount)`` with ``amount > 0``, payers then payees in that order."""
    losers = [(key, -net) for key, net in nets.items() if net < 0]
    winners = [(key, net) for key, net in nets.items() if net > 0]
    total = min(sum(loss for _, loss in losers), sum(win for _, win in winners))
    if total <= 0:
        return []
    paid = _apportion(total, [loss for _, loss in losers])
    got = _apportion(total, [win for _, win in winners])
    amounts = [[0] * len(got) for _ in paid]
    rows, cols = list(paid), list(got)
    remainders: list[tuple[int, int, int]] = []
    for i, share in enumerate(paid):
        for j, win in enumerate(got):
            amount, remainder = divmod(share * win, total)
            amounts[i][j] = amount
            rows[i] -= amount
            cols[j] -= amount
            if remainder:
                remainders.append((-remainder, i, j))
    remainders.sort()
    picked: list[tuple[int, int]] = []
    # One rounding that meets every total exists (the unrounded shares are one, and a flow
    # problem with whole capacities has a whole solution), so the search finds it.
    found = _round_up(remainders, rows, cols, picked, 0, sum(rows))
    assert found, "no exact rounding (cannot happen)"
    for i, j in picked:
        amounts[i][j] += 1
    return [
        (loser, winner, amounts[i][j])
        for i, (loser, _) in enumerate(losers)
        for j, (winner, _) in enumerate(winners)
        if amounts[i][j]
    ]


# --- recording ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameFlows:
    """Who paid whom in one settled game (``flows``: (payer account, payee account, amount)),
    stored with the game's hand, which the table and ``seq`` name (store.tables.FinishedHand)."""

    table_id: int
    seq: int
    currency: str
    private: bool
    flows: Sequence[tuple[int, int, int]]


def game_flows(
    *,
    currency: str,
    table_id: int,
    seq: int,
    private: bool,
    players: Mapping[int, int],
    nets: Mapping[int, int],
) -> GameFlows:
    """The flows of a settled game: ``players`` maps seat -> account, ``nets`` seat -> the
    seat's net for the game (a seat that plays itself, a bot seat taken twice, pays nobody)."""
    by_seat = {seat: nets.get(seat, 0) for seat in sorted(players)}
    flows = [
        (players[payer], players[payee], amount)
        for payer, payee, amount in attribute(by_seat)
        if players[payer] != players[payee]
    ]
    return GameFlows(table_id, seq, currency, private, flows)


def flow_steps(games: Sequence[GameFlows], at: datetime | None = None) -> list[Step]:
    """The statement that records the flows of ``games`` (none when nobody paid anybody), in the
    transaction that stores their hands: each flow finds its hand by (table, seq)."""
    rows = [
        (g.table_id, g.seq, g.currency, g.private, payer, payee, amount)
        for g in games
        for payer, payee, amount in g.flows
    ]
    if not rows:
        return []
    now = at or utcnow()
    stamp = sqlite_value(now)
    return [
        Step(
            _INSERT_FLOWS, {"rows": Document(rows), "now": now}, len(rows),
            each=lambda: [(*row, stamp) for row in rows],
        )
    ]  # fmt: skip


_INSERT_FLOWS = by_dialect(
    sqlite="""
        INSERT INTO chip_flows (currency, payer, payee, amount, table_id, hand_id, private, at)
        SELECT json_extract(f.value, '$[2]'), json_extract(f.value, '$[4]'),
               json_extract(f.value, '$[5]'), json_extract(f.value, '$[6]'), h.table_id, h.id,
               json_extract(f.value, '$[3]'), :now
        FROM json_each(:rows) AS f
        JOIN hands AS h ON h.table_id = json_extract(f.value, '$[0]')
                       AND h.seq = json_extract(f.value, '$[1]')
        ORDER BY f.key""",
    postgresql="""
        INSERT INTO chip_flows (currency, payer, payee, amount, table_id, hand_id, private, at)
        SELECT f.r ->> 2, CAST(f.r ->> 4 AS INTEGER), CAST(f.r ->> 5 AS INTEGER),
               CAST(f.r ->> 6 AS BIGINT), h.table_id, h.id, CAST(f.r ->> 3 AS BOOLEAN), :now
        FROM json_array_elements(CAST(:rows AS json)) WITH ORDINALITY AS f(r, n)
        JOIN hands AS h ON h.table_id = CAST(f.r ->> 0 AS INTEGER)
                       AND h.seq = CAST(f.r ->> 1 AS INTEGER)
        ORDER BY f.n""",
    binds=(bindparam("now", type_=UTCDateTime()),),
    sqlite_each="""
        INSERT INTO chip_flows (currency, payer, payee, amount, table_id, hand_id, private, at)
        SELECT ?3, ?5, ?6, ?7, table_id, id, ?4, ?8 FROM hands WHERE table_id = ?1 AND seq = ?2""",
)


# --- the largest flows ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairFlow:
    """The chips that moved between two accounts, oriented so that ``net`` >= 0: ``payer`` paid
    ``payee`` ``net`` chips more than the other way round."""

    payer: int
    payer_name: str
    payee: int
    payee_name: str
    net: int
    paid: int
    """Chips from payer to payee (gross)."""
    returned: int
    """Chips from payee to payer (gross)."""
    games: int
    """Games in which chips went between them (either way)."""
    together: int
    """Games they played together (at tables of this currency), chips moving between them or
    not."""
    private: int
    """The part of ``net`` that moved at private tables."""
    first: datetime
    last: datetime

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["first"] = self.first.isoformat()
        data["last"] = self.last.isoformat()
        return data


async def top_flows(
    session: AsyncSession,
    *,
    currency: str = CHIPS.key,
    since: datetime | None = None,
    top: int = 20,
) -> list[PairFlow]:
    """The ``top`` pairs of accounts with the largest one-way net flow of ``currency`` (since
    ``since``), largest first."""
    flow = ChipFlowModel
    forward = flow.payer < flow.payee  # low -> high
    low = case((forward, flow.payer), else_=flow.payee)
    high = case((forward, flow.payee), else_=flow.payer)
    signed = case((forward, flow.amount), else_=-flow.amount)
    net = func.sum(signed)
    conditions = [flow.currency == currency]
    if since is not None:
        conditions.append(flow.at >= since)
    rows = (
        await session.execute(
            select(
                low,
                high,
                net,
                func.sum(case((forward, flow.amount), else_=0)),
                func.sum(case((forward, 0), else_=flow.amount)),
                func.count(distinct(flow.hand_id)),
                func.sum(case((flow.private.is_(True), signed), else_=0)),
                func.min(flow.at),
                func.max(flow.at),
            )
            .where(*conditions)
            .group_by(low, high)
            .order_by(func.abs(net).desc(), low, high)
            .limit(max(1, top))
        )
    ).all()
    ids = {int(row[0]) for row in rows} | {int(row[1]) for row in rows}
    names = {
        int(account_id): str(name)
        for account_id, name in await session.execute(
            select(AccountModel.id, AccountModel.name).where(AccountModel.id.in_(ids))
        )
    }
    found = []
    for a, b, total, a_to_b, b_to_a, games, private, first, last in rows:
        a, b, total, a_to_b, b_to_a = int(a), int(b), int(total), int(a_to_b), int(b_to_a)
        private = int(private)
        if total < 0:
            a, b, total, a_to_b, b_to_a, private = b, a, -total, b_to_a, a_to_b, -private
        together = await _games_together(session, a, b, currency, since)
        found.append(
            PairFlow(
                payer=a,
                payer_name=names.get(a, "?"),
                payee=b,
                payee_name=names.get(b, "?"),
                net=total,
                paid=a_to_b,
                returned=b_to_a,
                games=int(games),
                together=together,
                private=private,
                first=first,
                last=last,
            )
        )
    return found


async def _games_together(
    session: AsyncSession, a: int, b: int, currency: str, since: datetime | None
) -> int:
    one, other = aliased(HandPlayerModel), aliased(HandPlayerModel)
    table_currency = func.coalesce(GameTableModel.config["currency"].as_string(), CHIPS.key)
    query = (
        select(func.count(distinct(one.hand_id)))
        .select_from(one)
        .join(other, other.hand_id == one.hand_id)
        .join(HandModel, HandModel.id == one.hand_id)
        .join(GameTableModel, GameTableModel.id == HandModel.table_id)
        .where(one.account_id == a, other.account_id == b, table_currency == currency)
    )
    if since is not None:
        query = query.where(HandModel.finished_at >= since)
    return int(await session.scalar(query) or 0)


# --- the `rummyhall audit --flows` command ------------------------------------------------------

_RELATIVE = re.compile(r"(\d+)\s*([dhm])")


def parse_since(text: str, *, now: datetime | None = None) -> datetime:
    """``--since``: a date or time (ISO 8601, UTC unless it says otherwise: ``2026-11-01``,
    ``2026-11-01T18:00``) or a span back from now (``7d``, ``12h``, ``30m``). ValueError if
    it is neither."""
    relative = _RELATIVE.fullmatch(text.strip().lower())
    if relative:
        amount, unit = int(relative.group(1)), relative.group(2)
        span = {"d": timedelta(days=amount), "h": timedelta(hours=amount)}.get(
            unit, timedelta(minutes=amount)
        )
        return (now or datetime.now(UTC)) - span
    when = datetime.fromisoformat(text.strip())
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def write_flows(
    flows: Sequence[PairFlow], out: TextIO, *, currency: str, since: datetime | None
) -> None:
    label = "chips" if currency == CHIPS.key else f"{currency} chips"
    span = f" since {since.isoformat(timespec='minutes')}" if since is not None else ""
    out.write(f"largest one-way flows of {label}{span} (payer -> payee, net of both ways)\n")
    if not flows:
        out.write("no chips went between players\n")
        return
    header = ("payer", "payee", "net", "paid", "returned", "games", "together", "private")
    numbers = [(f.net, f.paid, f.returned, f.games, f.together, f.private) for f in flows]
    rows = [
        (f.payer_name, f.payee_name, *(f"{n:,}" for n in figures))
        for f, figures in zip(flows, numbers, strict=True)
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [
            cell.ljust(width) if index < 2 else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        out.write("  ".join(cells).rstrip() + "\n")


async def flows_database(
    url: str, *, currency: str, since: datetime | None, top: int
) -> list[PairFlow]:
    from rummyhall.economy.audit import opened_for_audit

    async with opened_for_audit(url) as db, db.read() as session:
        return await top_flows(session, currency=currency, since=since, top=top)


def flows_command(
    url: str,
    out: TextIO,
    *,
    currency: str = CHIPS.key,
    since: datetime | None = None,
    top: int = 20,
    as_json: bool = False,
) -> int:
    """``rummyhall audit --flows``: the largest one-way flows; 0 listed, 2 cannot read."""
    from rummyhall.store.database import DatabaseError

    try:
        flows = asyncio.run(flows_database(url, currency=currency, since=since, top=top))
    except DatabaseError as exc:
        print(f"audit: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # unreachable server, refused login...
        print(f"audit: cannot read the database: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if as_json:
        data = {
            "currency": currency,
            "since": None if since is None else since.isoformat(),
            "flows": [flow.to_json() for flow in flows],
        }
        out.write(json.dumps(data, indent=2) + "\n")
    else:
        write_flows(flows, out, currency=currency, since=since)
    return 0
