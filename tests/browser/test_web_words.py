"""The words the client uses: a signed-out first visit leaves the console clean."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import ConsoleMessage, Page, expect


def test_first_visit_signed_out_logs_nothing(page: Page, screenshot: Callable[..., Any]) -> None:
    console: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            console.append(f"{message.type}: {message.text} ({message.location})")

    page.on("console", heard)
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto("/", wait_until="networkidle")
    expect(page.get_by_test_id("signin")).to_be_visible()
    # And a reload of a table's address while signed out: still the sign-in screen, still quiet.
    page.goto("/#/table/1", wait_until="networkidle")
    page.reload(wait_until="networkidle")
    expect(page.get_by_test_id("signin")).to_be_visible()
    assert console == []
    assert failed == []
    assert page.js_errors == []  # type: ignore[attr-defined]


def _chips(n: int, currency: str = "chips") -> str:
    """An amount in a room's chips: practice chips say so."""
    return f"{n:,} practice chips" if currency == "practice" else f"{n:,} chips"


def test_lobby_names_each_room_fact_for_what_it_is(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    rooms = page_api(page, "GET", "/api/rooms")["body"]["rooms"]
    kinds = set()
    for room in rooms:
        if room["currency"] == "gold":  # gold twins are not shown in the lobby
            continue
        key, config = room["key"], room["config"]
        unit = room["currency"]
        cost = page.get_by_test_id(f"fact-cost-{key}")
        if "entry_fee" in config:  # a pool: its fee, apart from the chips you bring
            expect(cost).to_contain_text("Entry fee")
            expect(cost).to_contain_text(_chips(config["entry_fee"], unit))
            kinds.add("pool")
        elif "point_value" in config:
            expect(cost).to_contain_text("Point value")
            kinds.add("points")
        elif "stake" in config:  # a stake a game: the winner takes the others'
            expect(cost).to_contain_text("Stake")
            expect(cost).to_contain_text(_chips(config["stake"], unit))
            kinds.add("stake")
        else:
            expect(cost).to_contain_text("Boot")
            expect(cost).to_contain_text(_chips(config["boot"], unit))
            kinds.add("boot")
        buy_in = page.get_by_test_id(f"fact-buy-in-{key}")
        expect(buy_in).to_contain_text("You bring")
        expect(buy_in).to_contain_text(_chips(room["buy_in"], unit))
        assert "buy-in" in (buy_in.get_attribute("title") or "").lower()
        expect(page.get_by_test_id(f"fact-min-stack-{key}")).to_contain_text(
            _chips(room["min_stack"], unit)
        )
        # no fact is called by another's name ("Entry" for the buy-in, as before)
        if "stake" not in config:
            expect(page.get_by_test_id(f"room-{key}")).not_to_contain_text("Stake")
    assert kinds == {"pool", "points", "boot", "stake"}
    screenshot(page, "lobby-room-facts")


def test_how_to_play_from_the_lobby_and_the_table(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    games = page_api(page, "GET", "/api/rooms")["body"]["games"]
    words = {
        "indian13": ["Pure sequence", "Cut joker", "Drop", "Pool 101", "Rejoin", "Vengala"],
        "patti": ["Boot", "Chaal", "Sideshow", "Show", "Pack", "Trail"],
    }
    assert set(words) <= set(games)
    dialog = page.get_by_test_id("how-to-play")
    for game in games:
        page.get_by_test_id(f"how-to-play-{game}").click()
        expect(dialog).to_be_visible()
        expect(dialog).to_have_attribute("data-game", game)
        assert dialog.get_by_test_id("how-to-play-section").count() >= 3
        for word in words.get(game, []):
            expect(dialog).to_contain_text(word)
        if game == "indian13":
            screenshot(page, "how-to-play-lobby")
        page.get_by_test_id("how-to-play-close").click()
        expect(dialog).to_have_count(0)

    # At a table the same guide is one click away, for the game played there.
    page.get_by_test_id("quick-seat-practice-patti-10-4p").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    page.get_by_test_id("table-how-to-play").click()
    expect(dialog).to_have_attribute("data-game", "patti")
    expect(dialog).to_contain_text("Sideshow")
    screenshot(page, "how-to-play-table")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_one_name_for_a_game_on_the_table_in_the_history_and_the_replay(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    seated = page_api(page, "POST", "/api/quick-seat", {"room": "practice-patti-10-4p"})
    assert seated["status"] == 200, seated
    table = seated["body"]["table"]
    page.goto(f"/#/table/{table}")
    pill = page.get_by_test_id("game-no")
    expect(pill).to_have_text(re.compile(rf"^Table {table} · game \d+$"))
    name = pill.inner_text()
    game_no = int(name.rsplit(" ", 1)[1])
    # Pack when the turn comes; the bots finish the game and it is saved as a record.
    mine: list[Any] = []
    deadline = time.monotonic() + 60
    while not mine:
        assert time.monotonic() < deadline, "the game was not saved"
        pack = page.get_by_test_id("action-pack")
        if pack.is_visible() and pack.is_enabled():
            pack.click()
        hands = page_api(page, "GET", "/api/hands")["body"]["hands"]
        mine = [h for h in hands if h["table"] == table and h["game_no"] == game_no]
        page.wait_for_timeout(100)
    assert len(mine) == 1, hands
    record = int(mine[0]["id"])

    page.get_by_test_id("nav-history").click()
    expect(page.get_by_test_id(f"history-name-{record}")).to_contain_text(name)
    expect(page.get_by_test_id(f"history-row-{record}")).to_contain_text(f"record #{record}")
    screenshot(page, "history-names")
    page.get_by_test_id(f"history-open-{record}").click()
    expect(page.get_by_test_id("hand-title")).to_have_text(f"Rummy Patti · {name}")
    expect(page.get_by_test_id("hand-subtitle")).to_contain_text(f"record #{record}")
    assert page.url.endswith(f"#/hand/{record}")
    assert page.js_errors == []  # type: ignore[attr-defined]
