"""Who paid whom: the attribution rule, the flows recorded with a game, and ``rummyhall audit
--flows`` (issue 15: chip dumping)."""

from __future__ import annotations

import asyncio
import itertools
import json
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummyhall import catalog, cli
from rummyhall.economy import flows
from rummyhall.economy.flows import attribute, parse_since, top_flows
from rummyhall.store import accounts
from rummyhall.store import tables as store_tables
from rummyhall.store.bulk import run_steps
from rummyhall.store.database import Database, default_url

# --- the attribution rule -----------------------------------------------------------------------


def test_one_loser_pays_one_winner() -> None:
    assert attribute({1: -20, 2: 20}) == [(1, 2, 20)]
    assert attribute({1: 35, 2: -35}) == [(2, 1, 35)]


def test_every_loser_pays_the_winner_what_they_lost() -> None:
    # 13 cards at points: the winner collects each loser's points.
    assert attribute({1: 100, 2: -20, 3: -80, 4: 0}) == [(2, 1, 20), (3, 1, 80)]


def test_many_losers_and_winners_pro_rata_exactly() -> None:
    # Ideal shares: 1->3 18.75, 1->4 11.25, 2->3 6.25, 2->4 3.75. Rounded down, two chips are
    # left; they go to the largest remainders (.75 and .75), and every total stays exact.
    result = attribute({1: -30, 2: -10, 3: 25, 4: 15})
    assert result == [(1, 3, 19), (1, 4, 11), (2, 3, 6), (2, 4, 4)]


def test_ties_go_to_the_earlier_seat() -> None:
    # 1->3 and 2->3 are both 1.5 ideally: the earlier loser pays the odd chip.
    assert attribute({1: -3, 2: -3, 3: 3, 4: 3}) == [
        (1, 3, 2),
        (1, 4, 1),
        (2, 3, 1),
        (2, 4, 2),
    ]


def test_the_rake_is_nobody_s_win() -> None:
    # A pool of two 50-chip fees won by a third player, 10 % to the house: the winner got 90,
    # 45 from each loser.
    assert attribute({1: -50, 2: -50, 3: 90}) == [(1, 3, 45), (2, 3, 45)]
    # Unequal losses: shares of the 90 in proportion to 60 and 40.
    assert attribute({1: -60, 2: -40, 3: 90}) == [(1, 3, 54), (2, 3, 36)]


def test_nothing_moves_without_a_loser_and_a_winner() -> None:
    assert attribute({1: 0, 2: 0}) == []
    assert attribute({1: -10, 2: 0}) == []  # all to the house (a voided rake, say)
    assert attribute({}) == []


@given(
    st.lists(st.integers(-10_000, 10_000), min_size=2, max_size=6),
    st.integers(0, 30),
)
def test_attribution_is_exact_and_fair(values: list[int], rake_percent: int) -> None:
    """Every loser pays its share of what the winners got, every winner gets its win, and each
    pair's amount is its ideal share rounded down or up."""
    wins = [v for v in values if v > 0]
    losses = [-v for v in values if v < 0]
    # Make the game add up: the losers' losses cover the wins plus a rake.
    if not wins or not losses:
        return
    win_total = sum(wins)
    nets = dict(enumerate(values, 1))
    loss_total = sum(losses)
    scale = Fraction(win_total * (100 + rake_percent), 100 * loss_total)
    for seat, net in nets.items():
        if net < 0:
            nets[seat] = -max(1, round(-net * scale))
    losses_after = {s: -n for s, n in nets.items() if n < 0}
    total = min(sum(losses_after.values()), win_total)
    result = attribute(nets)
    paid: dict[int, int] = {}
    got: dict[int, int] = {}
    for payer, payee, amount in result:
        assert amount > 0 and nets[payer] < 0 < nets[payee]
        paid[payer] = paid.get(payer, 0) + amount
        got[payee] = got.get(payee, 0) + amount
    assert sum(paid.values()) == total
    for seat, loss in losses_after.items():
        ideal = Fraction(total * loss, sum(losses_after.values()))
        assert abs(paid.get(seat, 0) - ideal) < 1
    winners = {s: n for s, n in nets.items() if n > 0}
    for seat, win in winners.items():
        ideal = Fraction(total * win, win_total)
        assert abs(got.get(seat, 0) - ideal) < 1
    for payer, payee, amount in result:
        share = Fraction(paid[payer] * got[payee], total)
        assert abs(amount - share) < 1


# --- recorded flows and the largest ones --------------------------------------------------------


async def _setup(db: Database, *names: str) -> tuple[dict[str, int], int, int]:
    """Accounts by name, a real-chip table and a practice table."""
    rooms = {room.currency: room for room in catalog.rooms()}
    async with db.transaction() as session:
        ids = {name: (await accounts.create_bot(session, name)).id for name in names}
        tables = [
            await store_tables.create_table(
                session, game=room.game, room=room.key, config=room.to_json()
            )
            for room in (rooms["chips"], rooms["practice"])
        ]
    return ids, tables[0], tables[1]


async def _game(
    db: Database,
    table_id: int,
    players: dict[int, int],
    nets: dict[int, int],
    *,
    private: bool = False,
    currency: str = "chips",
    at: datetime | None = None,
) -> list[tuple[int, int, int]]:
    # As the table writer stores a settled game: its hand, then the flows, which find the hand
    # by its table and log entry.
    seq = next(_SEQ)
    hand = store_tables.FinishedHand(table_id, seq, "indian13", {}, players)
    game = flows.game_flows(
        currency=currency, table_id=table_id, seq=seq, private=private, players=players,
        nets=nets,
    )  # fmt: skip

    async with db.transaction() as session:
        await session.run_sync(
            lambda sync: run_steps(
                sync.connection(),
                store_tables.hand_steps([hand], at) + flows.flow_steps([game], at),
            )
        )
    return list(game.flows)


_SEQ = itertools.count(1)
"""Log entries of the games these tests settle (a hand's key is its table and entry)."""


async def test_the_largest_one_way_flows(db: Database) -> None:
    ids, table, practice = await _setup(db, "asha", "ravi", "meera", "kiran")
    asha, ravi, meera, kiran = (ids[n] for n in ("asha", "ravi", "meera", "kiran"))
    # Asha dumps chips on Ravi at a private table, game after game; once Ravi pays a little back.
    for _ in range(5):
        assert await _game(db, table, {1: asha, 2: ravi}, {1: -80, 2: 80}, private=True) == [
            (asha, ravi, 80)
        ]
    await _game(db, table, {1: asha, 2: ravi}, {1: 20, 2: -20}, private=True)
    # Ordinary play at a public table: Meera and Kiran trade chips both ways, Ravi wins a bit.
    await _game(db, table, {1: meera, 2: kiran, 3: ravi}, {1: -30, 2: 10, 3: 20})
    await _game(db, table, {1: meera, 2: kiran, 3: ravi}, {1: 25, 2: -25, 3: 0})
    # Practice chips are listed apart (and not with the real chips).
    await _game(db, practice, {1: kiran, 2: meera}, {1: -9_000, 2: 9_000}, currency="practice")

    async with db.read() as session:
        found = await top_flows(session)
        practice_flows = await top_flows(session, currency="practice")
        top_one = await top_flows(session, top=1)
    first = found[0]
    assert (first.payer_name, first.payee_name) == ("asha", "ravi")
    assert (first.net, first.paid, first.returned, first.private) == (380, 400, 20, 380)
    assert (first.games, first.together) == (6, 6)
    assert top_one == [first]
    by_pair = {(f.payer_name, f.payee_name): f for f in found}
    assert by_pair[("kiran", "meera")].net == 25 - 10  # 10 to Kiran, then 25 to Meera
    assert by_pair[("kiran", "meera")].together == 2
    assert by_pair[("kiran", "meera")].private == 0
    assert by_pair[("meera", "ravi")].net == 20
    assert [(f.payer_name, f.payee_name, f.net) for f in practice_flows] == [
        ("kiran", "meera", 9_000)
    ]


async def test_flows_since_a_time(db: Database) -> None:
    ids, table, _ = await _setup(db, "asha", "ravi")
    old = datetime.now(UTC) - timedelta(days=30)
    await _game(db, table, {1: ids["asha"], 2: ids["ravi"]}, {1: -500, 2: 500}, at=old)
    await _game(db, table, {1: ids["asha"], 2: ids["ravi"]}, {1: 70, 2: -70})
    async with db.read() as session:
        everything = await top_flows(session)
        recent = await top_flows(session, since=datetime.now(UTC) - timedelta(days=7))
    assert [(f.payer_name, f.net, f.together) for f in everything] == [("asha", 430, 2)]
    assert [(f.payer_name, f.net, f.together) for f in recent] == [("ravi", 70, 1)]


def test_since_takes_dates_times_and_spans() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert parse_since("2026-11-01") == datetime(2026, 11, 1, tzinfo=UTC)
    assert parse_since("2026-11-01T18:30") == datetime(2026, 11, 1, 18, 30, tzinfo=UTC)
    assert parse_since("7d", now=now) == now - timedelta(days=7)
    assert parse_since("12h", now=now) == now - timedelta(hours=12)
    assert parse_since("30m", now=now) == now - timedelta(minutes=30)
    with pytest.raises(ValueError):
        parse_since("last tuesday")


async def test_audit_flows_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = await Database.open(default_url(tmp_path / "data"))
    try:
        ids, table, _ = await _setup(db, "asha", "ravi")
        for _ in range(3):
            await _game(
                db, table, {1: ids["asha"], 2: ids["ravi"]}, {1: -1_000, 2: 1_000}, private=True
            )
    finally:
        await db.close()
    folder = str(tmp_path / "data")
    assert await asyncio.to_thread(cli.main, ["audit", "--flows", "--data-dir", folder]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("largest one-way flows of chips")
    assert lines[1].split() == [
        "payer",
        "payee",
        "net",
        "paid",
        "returned",
        "games",
        "together",
        "private",
    ]
    assert lines[2].split() == ["asha", "ravi", "3,000", "3,000", "0", "3", "3", "3,000"]

    args = ["audit", "--flows", "--data-dir", folder, "--json", "--top", "5", "--since", "1d"]
    assert await asyncio.to_thread(cli.main, args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["currency"] == "chips" and data["since"] is not None
    assert [(f["payer_name"], f["payee_name"], f["net"]) for f in data["flows"]] == [
        ("asha", "ravi", 3_000)
    ]
    args = ["audit", "--flows", "--data-dir", folder, "--currency", "practice"]
    assert await asyncio.to_thread(cli.main, args) == 0
    assert "no chips went between players" in capsys.readouterr().out
    # Bad usage: a --since that is not a time, flow options without --flows.
    assert cli.main(["audit", "--flows", "--data-dir", folder, "--since", "soon"]) == 2
    assert cli.main(["audit", "--data-dir", folder, "--top", "3"]) == 2
    args = ["audit", "--flows", "--data-dir", str(tmp_path / "none")]
    assert await asyncio.to_thread(cli.main, args) == 2
    assert "no database file" in capsys.readouterr().err
    # The audit itself is still clean, and unchanged by the listing.
    assert await asyncio.to_thread(cli.main, ["audit", "--data-dir", folder]) == 0
    assert "audit: clean" in capsys.readouterr().out
