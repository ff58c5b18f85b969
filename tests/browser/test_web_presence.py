"""Where you sit and how you leave, in the browser: the lobby's "Your tables" (return, leave), a
second table only after saying so, leaving mid-game says what it costs first while leaving
between games is immediate, the auto-rebuy switch, and the AWAY badge on a seat whose person
has no connection."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

# Guests play practice rooms, with practice chips.
PATTI = "practice-patti-10-4p"
POINTS = "practice-indian13-classic-points-1-2p"
PRIVATE = "practice-patti-10-5p"


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # A long pause after each game (the table waits between games while the test looks), and a
    # long grace for people away (nobody is stood up while the test watches their badge).
    return [
        "--bot-wait", "0", "--bot-think-ms", "50",
        "--next-game-ms", "600000", "--away-grace-ms", "600000",
    ]  # fmt: skip


def message(page: Page) -> Any:
    return page.evaluate("window.rummyhall.lastTableMessage") or {}


def table_id(page: Page) -> int:
    expect(page).to_have_url(re.compile(r"#/table/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def test_your_tables_and_a_second_seat_only_on_request(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    page.get_by_test_id(f"quick-seat-{PATTI}").click()
    first = table_id(page)
    expect(page.get_by_test_id("table")).not_to_have_attribute("data-you", "")
    page.get_by_test_id("back-to-lobby").click()

    # The lobby says where you sit, with the way back and a way out.
    row = page.get_by_test_id(f"your-table-{first}")
    expect(row).to_contain_text(f"Table {first}")
    expect(row).to_contain_text("Rummy Patti")
    expect(page.get_by_test_id(f"leave-{first}")).to_be_visible()

    # Quick seat in another room: asked first; going back takes you to the table you have.
    page.get_by_test_id(f"quick-seat-{POINTS}").click()
    dialog = page.get_by_test_id("elsewhere-dialog")
    expect(dialog).to_contain_text(f"table {first}")
    screenshot(page, "presence-elsewhere")
    page.get_by_test_id("elsewhere-go").click()
    assert table_id(page) == first
    assert len(page_api(page, "GET", "/api/me")["body"]["tables"]) == 1

    # Asked again, this time for a seat there as well.
    page.get_by_test_id("back-to-lobby").click()
    page.get_by_test_id(f"quick-seat-{POINTS}").click()
    page.get_by_test_id("elsewhere-also").click()
    second = table_id(page)
    assert second != first
    tables = page_api(page, "GET", "/api/me")["body"]["tables"]
    assert sorted(t["table"] for t in tables) == [first, second]

    # Leaving one from the lobby.
    page.get_by_test_id("back-to-lobby").click()
    expect(page.get_by_test_id(f"your-table-{second}")).to_be_visible()
    screenshot(page, "presence-your-tables")
    page.get_by_test_id(f"leave-{second}").click()
    if page.get_by_test_id("confirm-yes").is_visible():  # a game was running there
        expect(page.get_by_test_id("confirm")).to_contain_text("drop")
        page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("toast").last).to_contain_text(f"table {second}")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_leaving_mid_deal_names_the_cost(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    wallet: Callable[..., int],
) -> None:
    play_as_guest(page)
    start = wallet(page, "practice")
    # Our turn in a deal (the game then waits for us). A bot may end the deal before that (the
    # table then rests for ten minutes): leave, free between games, and sit at a new table of
    # our own (quick seat could bring us back to the resting one).
    for _ in range(6):
        created = page_api(page, "POST", "/api/tables", {"room": POINTS, "private": True})
        table = created["body"]["table"]["id"]
        assert page_api(page, "POST", f"/api/tables/{table}/sit", {})["status"] == 200
        page.goto(f"/#/table/{table}")
        assert table_id(page) == table
        # (This table's messages: the last one the page holds may still be the previous one's.)
        state = page.wait_for_function(
            """(table) => { const m = window.rummyhall.lastTableMessage;
                if (!m || m.table !== table || m.info.game_no < 1) return null;
                if (!m.info.playing) return 'over';
                const ours = m.view && m.view.phase === 'play' && m.view.turn === m.you;
                return ours ? 'turn' : null; }""",
            arg=table,
        ).json_value()
        if state == "turn":
            break
        page.get_by_test_id("leave").click()
        expect(page.get_by_test_id("lobby")).to_be_visible()
        start = wallet(page, "practice")
    else:
        raise AssertionError("never reached our turn in six deals")
    # In the deal: the leave button asks first, naming a drop and its price.
    page.get_by_test_id("leave").click()
    dialog = page.get_by_test_id("confirm")
    expect(dialog).to_contain_text("drop: 20 points (20 chips)")
    page.get_by_test_id("confirm-no").click()
    expect(dialog).to_have_count(0)
    assert page_api(page, "GET", f"/api/tables/{table}")["body"]["table"]["playing"]
    page.get_by_test_id("leave").click()
    page.get_by_test_id("confirm-yes").click()
    # Two seats: the drop ends the deal, and the seat stands up without waiting for the pause;
    # with no person left, the bot goes too and the table closes.
    expect(page.get_by_test_id("table")).to_have_attribute("data-you", "")
    expect(page.get_by_test_id("table-closed")).to_be_visible()
    me = page_api(page, "GET", "/api/me")["body"]
    assert me["tables"] == []
    assert me["practice"] == start - 20  # a first drop, at one chip a point
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_leaving_between_games_is_immediate(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    page.get_by_test_id(f"quick-seat-{PATTI}").click()
    table = table_id(page)

    # The auto-rebuy switch: off until the player turns it on.
    switch = page.get_by_test_id("auto-rebuy")
    expect(switch).not_to_be_checked()
    switch.check()
    page.wait_for_function(
        f"""async () => (await (await fetch('/api/tables/{table}')).json())
            .table.seats.some(s => s && s.auto_rebuy)"""
    )
    switch.uncheck()
    page.wait_for_function(
        f"""async () => !(await (await fetch('/api/tables/{table}')).json())
            .table.seats.some(s => s && s.auto_rebuy)"""
    )

    # Pack at the first turn; the bots finish the hand; the table then rests (ten minutes here).
    page.get_by_test_id("action-pack").click()
    page.wait_for_function(
        """() => { const m = window.rummyhall.lastTableMessage;
            return m && m.info.game_no >= 1 && !m.info.playing; }"""
    )
    screenshot(page, "presence-between-games")
    wallet_before = page_api(page, "GET", "/api/me")["body"]["practice"]
    stack = message(page)["info"]["seats"][int(message(page)["you"]) - 1]["stack"]
    page.get_by_test_id("leave").click()
    # No question: leaving now costs nothing; straight back to the lobby with the chips.
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("confirm")).to_have_count(0)
    me = page_api(page, "GET", "/api/me")["body"]
    assert me["practice"] == wallet_before + stack
    assert me["tables"] == []
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_seat_whose_person_is_gone_shows_away(
    page: Page,
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    page.get_by_test_id(f"create-private-{PRIVATE}").click()
    link = page.get_by_test_id("invite-link").input_value()
    page.get_by_test_id("invite-go").click()
    # The host watches; a friend takes a seat (bots fill the others at once).
    expect(page.get_by_test_id("spectator-banner")).to_be_visible()

    friend = new_page()
    friend.goto(link)
    friend.get_by_test_id("signin-guest").click()
    friend.get_by_test_id("take-seat").click()
    expect(friend.get_by_test_id("table")).not_to_have_attribute("data-you", "")
    seat = friend.get_by_test_id("table").get_attribute("data-you")
    assert seat
    expect(page.get_by_test_id(f"seat-name-{seat}")).not_to_have_text(f"Seat {seat}")
    expect(page.get_by_test_id(f"away-{seat}")).to_be_hidden()

    # The friend closes the tab: the seat is marked away (the table waits for them between
    # games, for the grace period); back, the mark goes.
    url = friend.url
    friend.close()
    expect(page.get_by_test_id(f"away-{seat}")).to_be_visible()
    screenshot(page, "presence-away")
    again = friend.context.new_page()  # the same browser, its session cookie kept
    again.goto(url)
    expect(again.get_by_test_id("table")).to_have_attribute("data-you", seat)
    expect(page.get_by_test_id(f"away-{seat}")).to_be_hidden()
    assert page.js_errors == []  # type: ignore[attr-defined]
