"""Rejoining a pool in the browser: the page's player is knocked out of a six-seat pool 101 while
nobody else is near the limit, the Rejoin button appears between deals, and after confirming the
player is back on the highest remaining total + 1, the entry fee gone from the seat to the pot.

The other five seats are scripted Python players (``Scripted`` of test_web_patti): four drop at
their first turn of every deal (20 points each), one draws and discards and never declares, so
that the page's player, who plays one turn and then drops (a middle drop, 40), is out after three
deals (120) while the others stand at 60 and 0, under the rejoin limit of 79."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_web_indian13 import (
    JSON,
    Frames,
    card_in_hand,
    enabled,
    flat,
    hand_groups,
    pumped,
    settled,
    wait_until,
)
from test_web_patti import Scripted

ROOM = "practice-indian13-pool101-50-6p"  # guests play practice rooms
YOU = 1


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # No bots (they would wait an hour); a pause between deals long enough to rejoin in.
    return ["--bot-wait", "3600", "--bot-think-ms", "0", "--deal-ms", "5000"]


@pytest.fixture
def scripted(server: Any) -> Iterator[Scripted]:
    players = Scripted(server.url)
    try:
        yield players
    finally:
        players.close()


def dropper(message: JSON) -> str | None:
    return "drop" if "drop" in message["legal"] else None


def stayer(message: JSON) -> str | None:
    """Draws from the closed deck and throws a card back, never declares: the deal ends when
    everybody else has dropped."""
    legal = message["legal"]
    if "draw closed" in legal:
        return "draw closed"
    discards = [action for action in legal if action.startswith("discard ")]
    return discards[0] if discards else None


def me(frames: Frames) -> JSON:
    return next(s for s in frames.view()["seats"] if s["seat"] == YOU)  # type: ignore[no-any-return]


def one_turn(page: Page, frames: Frames, first: bool) -> None:
    """Our turn: draw and throw the drawn card back on the first, drop (40) on the next."""
    if not first:
        page.get_by_test_id("action-drop").click()
        page.get_by_test_id("confirm-yes").click()
        pumped(page, lambda: me(frames)["status"] != "playing", "the drop")
        return
    held = Counter(flat(hand_groups(page)))
    count = held.total()
    page.get_by_test_id("pile-closed").click()
    wait_until(lambda: len(flat(hand_groups(page))) == count + 1, "the drawn card")
    (drawn,) = (Counter(flat(hand_groups(page))) - held).elements()
    settled(page)
    card_in_hand(page, drawn).click(position={"x": 8, "y": 30})
    button = page.get_by_test_id("action-discard")
    wait_until(lambda: enabled(button), "the discard button")
    button.click()

    def thrown() -> bool:
        # The drawn card may be a wild joker: the table then asks first, and we mean it.
        confirm = page.get_by_test_id("confirm-yes")
        if confirm.is_visible():
            confirm.click()
        return len(flat(hand_groups(page))) == count

    wait_until(thrown, "the discard")


def test_rejoin_a_pool_in_the_browser(
    page: Page,
    scripted: Scripted,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    frames = Frames(page)
    play_as_guest(page)
    table, invite = scripted.join(None, 2, stayer, room=ROOM)
    for seat in range(3, 7):
        scripted.join(table, seat, dropper, room=ROOM)
    # A private table: reached through its invite.
    assert page_api(page, "GET", f"/api/invites/{invite}")["status"] == 200
    answer = page_api(page, "POST", f"/api/tables/{table}/sit", {"seat": YOU, "buy_in": None})
    assert answer["status"] == 200, answer
    page.goto(f"/#/table/{table}")
    page.get_by_test_id("table").wait_for()
    pumped(page, lambda: frames.messages and frames.last["view"] is not None, "the first deal")
    pool = frames.view()["pool"]
    fee, limit = pool["entry_fee"], pool["rejoin_limit"]

    played: set[int] = set()  # the deals in which we have had our first turn
    deadline = time.monotonic() + 90
    while not (me(frames)["status"] == "eliminated" and "rejoin" in frames.last["legal"]):
        assert time.monotonic() < deadline, "we were not knocked out with the rejoin open"
        view = frames.view()
        assert view["phase"] != "over", "the pool ended instead"
        if view["phase"] != "play" or not enabled(page.get_by_test_id("pile-closed")):
            page.wait_for_timeout(50)
            continue
        one_turn(page, frames, first=view["deal"] not in played)
        played.add(view["deal"])

    view = frames.view()
    totals = {s["seat"]: s["total"] for s in view["seats"]}
    assert view["phase"] == "between" and view["deal"] == 3
    assert totals == {YOU: 120, 2: 0, 3: 60, 4: 60, 5: 60, 6: 60}
    assert max(t for s, t in totals.items() if s != YOU) <= limit
    stack = frames.last["info"]["seats"][YOU - 1]["stack"]
    pot = view["pool"]["pot"]
    rejoin = page.get_by_test_id("action-rejoin")
    expect(rejoin).to_be_visible()
    expect(rejoin).to_be_enabled()
    screenshot(page, "indian13-pool-rejoin")
    rejoin.click()
    dialog = page.get_by_test_id("confirm")
    expect(dialog).to_contain_text(f"{fee} chips")
    page.get_by_test_id("confirm-yes").click()

    # Back in on the highest remaining total + 1, the entry paid again from the seat to the pot.
    pumped(page, lambda: me(frames)["status"] != "eliminated", "the rejoin")
    assert me(frames)["total"] == 61
    assert frames.view()["pool"]["pot"] == pot + fee
    pumped(
        page,
        lambda: frames.last["info"]["seats"][YOU - 1]["stack"] == stack - fee,
        "the seat's stack after the rejoin",
    )
    expect(rejoin).to_be_hidden()
    mark = page.get_by_test_id(f"seat-mark-{YOU}")
    wait_until(lambda: mark.get_attribute("data-total") == "61", "our total on the seat")
    assert mark.get_attribute("data-status") != "eliminated"
    # The next deal deals us in.
    pumped(
        page,
        lambda: frames.view()["deal"] == 4 and me(frames)["status"] == "playing",
        "the fourth deal",
        timeout=20,
    )
    screenshot(page, "indian13-pool-rejoined")
    assert not page.js_errors  # type: ignore[attr-defined]
