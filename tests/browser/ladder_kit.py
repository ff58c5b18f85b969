"""What the ladder's browser tests share (tests/browser/test_web_ladder.py, test_web_league.py):
writing to the test server's database through the ladder's own path, signing up without a
browser, and the phone check of the ladder's pages."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import httpx
from playwright.sync_api import Page

from conftest import PHONE
from rummyhall.economy import ladder, ledger
from rummyhall.games.protocol import Standing
from rummyhall.store.database import Database

SEEDED_GAME = "rummy51"


def _in_thread(work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    # The browser tests run Playwright's sync API, whose event loop owns this thread.
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(work())
        except BaseException as error:  # re-raised in the test's thread
            failure.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def in_database(database_url: str, job: Callable[[Any], Any]) -> None:
    """Run ``job(connection)`` in one transaction of the server's database."""

    async def write() -> None:
        db = await Database.open(database_url, migrate=False)
        try:
            async with db.transaction() as session:
                await session.run_sync(lambda sync: job(sync.connection()))
        finally:
            await db.close()

    _in_thread(write)


def record_games(
    database_url: str,
    games: Sequence[tuple[int, Standing]],
    *,
    game: str = SEEDED_GAME,
    multiplier_tenths: int = 10,
    tier: str | None = None,
    at_ms: int | None = None,
) -> None:
    """One finished game of a real room per (account, standing), at ``at_ms`` (now), through the
    ladder's own path: clover, level rewards, the boards, and with a ``tier`` the league."""
    at = at_ms if at_ms is not None else int(time.time() * 1000)

    def job(conn: Any) -> None:
        for account, standing in games:
            ladder.record_game(
                conn, game=game, multiplier_tenths=multiplier_tenths, at_ms=at,
                players=[(account, standing)], tier=tier,
            )  # fmt: skip

    in_database(database_url, job)


def lose_chips(database_url: str, account_id: int, chips: int) -> None:
    """Real chips lost to the house, as at a table."""
    in_database(
        database_url,
        lambda conn: ledger.transfer_on(
            conn,
            f"ladder-test-lost:{account_id}",
            [(ledger.CHIPS.wallet(account_id), -chips), (ledger.CHIPS.house, chips)],
            kind="test",
        ),
    )


def register(url: str, name: str) -> int:
    answer = httpx.post(
        f"{url}/api/register", json={"name": name, "password": "correct horse 1"}, timeout=30
    )
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


def me(page: Page, page_api: Callable[..., Any]) -> Any:
    answer = page_api(page, "GET", "/api/me")
    assert answer["status"] == 200, answer
    return answer["body"]


def fits_the_phone(page: Page) -> list[str]:
    """What is wrong at 390 px: sideways scrolling (of the page or of a leaderboard's table), a
    top bar part off the screen or over another one."""
    before = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        return page.evaluate(  # type: ignore[no-any-return]
            """() => {
                const problems = [];
                if (document.documentElement.scrollWidth > window.innerWidth + 1)
                    problems.push(`scrolls sideways: ${document.documentElement.scrollWidth}`);
                for (const box of document.querySelectorAll('.board-scroll'))
                    if (box.scrollWidth > box.clientWidth + 1)
                        problems.push(`the board scrolls sideways: ${box.scrollWidth}`);
                const parts = [...document.querySelectorAll(
                    '.topbar .nav > .nav-link, .topbar .nav-more, .topbar .who > *')]
                    .filter((node) => node.getBoundingClientRect().width > 0);
                const boxes = parts.map((node) => [node, node.getBoundingClientRect()]);
                for (const [node, box] of boxes) {
                    if (box.left < -1 || box.right > window.innerWidth + 1)
                        problems.push(`${node.className} off the screen`);
                }
                boxes.forEach(([a, one], i) => boxes.slice(i + 1).forEach(([b, two]) => {
                    const x = Math.min(one.right, two.right) - Math.max(one.left, two.left);
                    const y = Math.min(one.bottom, two.bottom) - Math.max(one.top, two.top);
                    if (x > 1 && y > 1) problems.push(`${a.className} over ${b.className}`);
                }));
                return problems;
            }"""
        )
    finally:
        page.set_viewport_size(before or {"width": 1366, "height": 768})
