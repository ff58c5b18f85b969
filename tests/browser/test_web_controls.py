"""The 13-card table's controls match the moment: before the first deal nothing can be pressed
(and a points table never offers Rejoin), and throwing away a wild joker asks first.

Two people share a private two-seat table; bots never come (they would wait ten minutes), so
the table stays before its first deal until the second person sits, and the test plays both
seats itself."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

ROOM = "practice-indian13-classic-points-1-2p"  # guests play practice rooms
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    return ["--bot-wait", "600", "--bot-think-ms", "40", "--deal-ms", "0"]


def message(page: Page) -> JSON:
    return page.evaluate("window.rummyhall.lastTableMessage") or {}  # type: ignore[no-any-return]


def wait_for(check: Callable[[], Any], what: str, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


def looks_off(button: Locator) -> bool:
    """Hidden, or shown as disabled (the view marks refused controls with aria-disabled)."""
    return not button.is_visible() or button.get_attribute("aria-disabled") == "true"


def wild(card: str, view: JSON) -> bool:
    return card == "JK" or card[:-1] == str(view.get("wild_rank"))


def hand_card(page: Page, card: str) -> Locator:
    return page.locator(f'[data-testid="hand"] [data-testid="hand-card"][data-card="{card}"]').last


def select(page: Page, card: str) -> None:
    page.wait_for_function(
        """() => !document.getAnimations().some(a => a.effect && a.effect.target
            && a.effect.target.closest && a.effect.target.closest('[data-testid="hand"]'))"""
    )
    hand_card(page, card).click(position={"x": 8, "y": 30})


def two_at_a_private_table(
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
) -> tuple[list[Page], int]:
    pages = [new_page(), new_page()]
    for page in pages:
        play_as_guest(page)
    created = page_api(pages[0], "POST", "/api/tables", {"room": ROOM, "private": True})
    assert created["status"] == 201, created
    # The second player reaches the private table through its invite.
    opened = page_api(pages[1], "GET", f"/api/invites/{created['body']['invite']}")
    assert opened["status"] == 200, opened
    return pages, int(created["body"]["table"]["id"])


def test_nothing_to_press_before_the_first_deal(
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    (first, second), table = two_at_a_private_table(new_page, play_as_guest, page_api)
    sat = page_api(first, "POST", f"/api/tables/{table}/sit", {"seat": None, "buy_in": None})
    assert sat["status"] == 200, sat
    first.goto(f"/#/table/{table}")
    wait_for(lambda: message(first).get("you"), "the seat in the table's message")
    assert message(first)["view"] is None  # alone: no game yet
    expect(first.get_by_test_id("table-status")).to_contain_text("Waiting for players")
    for testid in ("action-discard", "action-declare", "action-drop", "action-new-group"):
        assert looks_off(first.get_by_test_id(testid)), testid
    expect(first.get_by_test_id("action-rejoin")).to_be_hidden()
    expect(first.get_by_test_id("hand-card")).to_have_count(0)
    screenshot(first, "indian13-before-the-deal")

    # The second player sits: the deal comes, and a points table still offers no Rejoin.
    sat = page_api(second, "POST", f"/api/tables/{table}/sit", {"seat": None, "buy_in": None})
    assert sat["status"] == 200, sat
    second.goto(f"/#/table/{table}")  # (a table deals once the people seated at it are there)
    first.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
    expect(first.get_by_test_id("action-rejoin")).to_be_hidden()
    assert first.js_errors == []  # type: ignore[attr-defined]


def test_discarding_a_wild_joker_asks_first(
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    pages, table = two_at_a_private_table(new_page, play_as_guest, page_api)
    for page in pages:
        sat = page_api(page, "POST", f"/api/tables/{table}/sit", {"seat": None, "buy_in": None})
        assert sat["status"] == 200, sat
        page.goto(f"/#/table/{table}")
    for page in pages:
        page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)

    # Both seats draw and throw a plain card in turn until the one to move holds a wild joker
    # after its draw (most hands hold one at once: 2 printed jokers and 8 wild-rank cards).
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, "no wild joker came to hand"
        mover = wait_for(
            lambda: next(
                (
                    p
                    for p in pages
                    if (m := message(p)).get("view")
                    and m["view"]["phase"] == "play"
                    and m["view"]["turn"] == m["you"]
                    and "draw closed" in m["legal"]
                ),
                None,
            ),
            "a seat to draw",
        )
        held = len(message(mover)["view"]["hand"])
        mover.get_by_test_id("pile-closed").click()
        view = wait_for(
            lambda p=mover, n=held: (v := message(p)["view"]) and len(v["hand"]) == n + 1 and v,
            "the drawn card",
        )
        wilds = [card for card in view["hand"] if wild(card, view)]
        if wilds:
            break
        plain = view["hand"][-1]
        select(mover, plain)
        mover.get_by_test_id("action-discard").click()
        wait_for(lambda p=mover, n=held: len(message(p)["view"]["hand"]) == n, "the discard")

    joker = wilds[0]
    # "Keep it": nothing is sent, the joker stays in the hand and the turn goes on.
    select(mover, joker)
    mover.get_by_test_id("action-discard").click()
    dialog = mover.get_by_test_id("confirm")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("joker")
    screenshot(mover, "indian13-joker-discard-confirm")
    mover.get_by_test_id("confirm-no").click()
    expect(dialog).to_have_count(0)
    after = message(mover)["view"]
    assert after["drawn"] and after["turn"] == message(mover)["you"]
    assert after["hand"].count(joker) == view["hand"].count(joker)

    # The D key on the selected card takes the same path and asks again; "Discard the joker"
    # throws it.
    chosen = mover.locator('[data-testid="hand"] [data-testid="hand-card"][aria-pressed="true"]')
    expect(chosen).to_have_attribute("data-card", joker)
    chosen.press("d")
    expect(dialog).to_be_visible()
    mover.get_by_test_id("confirm-yes").click()
    wait_for(
        lambda: (v := message(mover)["view"]) and v["open"] and v["open"][-1] == joker,
        "the joker on the open pile",
    )
    assert not any(page.js_errors for page in pages)  # type: ignore[attr-defined]
