"""Pool rummy (13 cards, pool 101) in the browser: a new player quick-seats at a two-seat pool
table, a bot takes the other seat, and the player plays deal after deal (draws and discards the
solver's choice, declares a complete hand, or drops) until the pool is decided. After every deal
the running totals on the seats and in the result panel are the engine's, eliminations are
shown, and at the end the wallet equals what the result says: the entry fee paid, the prize won.

The table's messages are read off the page's WebSocket (``Frames`` of test_web_indian13)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page
from test_web_indian13 import (
    JSON,
    Frames,
    assert_hand_is_the_view,
    card_in_hand,
    enabled,
    flat,
    hand_groups,
    pumped,
    quick_seat,
    settled,
    wait_until,
)

from rummyhall.cards import parse
from rummyhall.melds import arrange

ROOM = "indian13-pool101-50-2p"
PROFILE = "indian13/classic"
ELIMINATION = 101
TURNS_BEFORE_DROP = 2  # play a couple of turns in each deal, then a middle drop (40 points)


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # A bot sits at once and thinks briefly; the next deal follows a short pause (long enough to
    # see the table between deals); the finished game stays on the table.
    return [
        "--bot-wait",
        "0.2",
        "--bot-think-ms",
        "30",
        "--deal-ms",
        "700",
        "--next-game-ms",
        "60000",
    ]


def seat_totals(page: Page, seats: list[int]) -> dict[int, int | None]:
    """The pool total each seat's badge shows (the view's mark, data-total)."""
    totals: dict[int, int | None] = {}
    for seat in seats:
        value = page.get_by_test_id(f"seat-mark-{seat}").get_attribute("data-total")
        totals[seat] = None if value in (None, "") else int(value)
    return totals


def check_deal_end(page: Page, frames: Frames, summary: JSON) -> None:
    """The result panel of this deal, and the seats, show the engine's totals."""
    deal = summary["deal"]
    seats = sorted(int(s) for s in summary["totals"])
    # Read in one step while the panel is there: once the next deal is under way the panel goes
    # (at once when it is our turn to draw), so a read spread over several calls could find it
    # gone halfway.
    try:
        shown = page.wait_for_function(
            """(deal) => {
                const panel = document.querySelector(
                    `[data-testid="result"][data-deal="${deal}"]`);
                if (!panel) return null;
                const rows = {};
                for (const row of panel.querySelectorAll('[data-testid="result-row"]')) {
                    const points = row.querySelector('[data-testid="result-points"]');
                    const total = row.querySelector('[data-testid="result-total"]');
                    rows[row.dataset.seat] = {
                        points: points ? points.innerText : null,
                        total: total ? total.dataset.total : null,
                        eliminated:
                            row.querySelectorAll('[data-testid="result-eliminated"]').length,
                    };
                }
                return rows;
            }""",
            arg=deal,
        ).json_value()
    except Exception:
        print("JS errors:", page.js_errors)  # type: ignore[attr-defined]
        print(page.evaluate("() => document.querySelector('[data-testid=result]')?.outerHTML"))
        print([m["view"]["phase"] for m in frames.messages][-20:])
        raise
    for seat in seats:
        row = shown[str(seat)]
        assert row["points"] == str(summary["scores"][str(seat)])
        total = summary["totals"][str(seat)]
        assert row["total"] == str(total)
        out = seat in summary["eliminated"]
        assert row["eliminated"] == (1 if out else 0)
        assert (total >= ELIMINATION) == out
    # The seats show the running totals of the latest view (the next deal may have begun).
    wait_until(
        lambda: seat_totals(page, seats) == {s["seat"]: s["total"] for s in frames.view()["seats"]},
        f"the seats' pool totals after deal {deal}",
    )
    for seat in seats:
        mark = page.get_by_test_id(f"seat-mark-{seat}")
        if seat in summary["eliminated"]:
            assert mark.get_attribute("data-status") == "eliminated"


def my_seat_playing(frames: Frames) -> bool:
    you = frames.last["you"]
    return any(s["seat"] == you and s["status"] == "playing" for s in frames.view()["seats"])


def play_turn(page: Page, frames: Frames, turns: int) -> None:
    """One turn of ours: drop after a few turns, else draw, then declare or discard."""
    cut = frames.view()["cut"]
    if turns > TURNS_BEFORE_DROP and enabled(page.get_by_test_id("action-drop")):
        page.get_by_test_id("action-drop").click()
        page.get_by_test_id("confirm-yes").click()
        deal = frames.view()["deal"]
        pumped(page, lambda: frames.view()["deal"] != deal or not my_seat_playing(frames), "drop")
        return
    count = len(flat(hand_groups(page)))
    page.get_by_test_id("pile-closed").click()
    wait_until(lambda: len(flat(hand_groups(page))) == count + 1, "the drawn card")
    assert_hand_is_the_view(page, frames)
    held = flat(hand_groups(page))
    best = arrange([parse(c) for c in held], joker=parse(cut), profile=PROFILE)
    assert best.discard is not None
    throw = str(best.discard)
    if best.declarable:
        page.get_by_test_id("action-arrange").click()
        wait_until(lambda: hand_groups(page)[-1] == [throw], "the solver's arrangement")
    settled(page)
    card_in_hand(page, throw).click(position={"x": 8, "y": 30})
    button = page.get_by_test_id("action-declare" if best.declarable else "action-discard")
    wait_until(lambda: enabled(button), "the action button")
    button.click()
    wait_until(
        lambda: len(flat(hand_groups(page))) == count or frames.view()["phase"] != "play",
        "the discard or the declaration",
    )


def test_a_pool_in_the_browser(
    page: Page,
    sign_up: Callable[..., None],
    wallet: Callable[[Page], int],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    frames = Frames(page)
    sign_up(page, f"pool{int(time.time() * 1000) % 10**8}")
    before = wallet(page)
    quick_seat(page, ROOM)
    you = frames.last["you"]
    assert you is not None
    table = frames.last["table"]
    pool = frames.view()["pool"]
    assert pool["elimination"] == ELIMINATION
    fee = pool["entry_fee"]
    assert fee > 0
    rooms = page_api(page, "GET", "/api/rooms")["body"]["rooms"]
    buy_in = next(room["buy_in"] for room in rooms if room["key"] == ROOM)
    # The wallet paid the buy-in to the seat; the seat paid the entry into the pot.
    assert wallet(page) == before - buy_in
    assert frames.last["info"]["seats"][you - 1]["stack"] == buy_in - fee

    checked: set[int] = set()
    turns = 0  # our turns in the current deal
    deal_no = 0
    shots: set[str] = set()
    deadline = time.monotonic() + 50
    while True:
        assert time.monotonic() < deadline, "the pool did not end in time"
        view = frames.view()
        for summary in view["history"]:
            if summary["deal"] not in checked:
                check_deal_end(page, frames, summary)
                checked.add(summary["deal"])
                if "between" not in shots and view["phase"] == "between":
                    screenshot(page, "indian13-pool-between")
                    shots.add("between")
        if view["phase"] == "over":
            break
        if view["deal"] != deal_no:
            deal_no, turns = view["deal"], 0
        show = page.get_by_test_id("action-show")
        if show.is_visible() and enabled(show):
            show.click()
            page.wait_for_timeout(100)
            continue
        if view["phase"] != "play" or not enabled(page.get_by_test_id("pile-closed")):
            page.wait_for_timeout(50)
            continue
        turns += 1
        if "playing" not in shots and checked:
            screenshot(page, "indian13-pool-playing")
            shots.add("playing")
        play_turn(page, frames, turns)

    assert len(checked) >= 2, "a pool of one deal"
    view = frames.view()
    result = view["result"]
    assert result is not None
    final = page.get_by_test_id("result")
    wait_until(lambda: final.get_attribute("data-over") == "true", "the final result")
    screenshot(page, "indian13-pool-over")
    # The result says what the pool cost and paid: the entry fee and the prize.
    my_row = final.locator(f'[data-testid="result-row"][data-seat="{you}"]')
    prize = int(my_row.get_by_test_id("result-chips").get_attribute("data-amount") or 0)
    assert prize == sum(p["amount"] for p in result["postings"] if p["account"] == f"seat:{you}")
    assert int(final.get_by_test_id("result-entry").get_attribute("data-amount") or 0) == fee
    winner = result["winners"][0]
    assert (prize > 0) == (winner == you)
    pot = result["detail"]["pot"]
    assert pot == 2 * fee
    assert final.get_by_test_id("result-pot").get_attribute("data-pot") == str(pot)
    # The seat's stack is the buy-in less the fee plus the prize; leaving takes it home.
    pumped(
        page,
        lambda: frames.last["info"]["seats"][you - 1]["stack"] == buy_in - fee + prize,
        "the seat's stack after the pool",
    )
    hands = page_api(page, "GET", "/api/hands")["body"]["hands"]
    assert hands[0]["table"] == table
    page.get_by_test_id("result-close").click()
    page.get_by_test_id("leave").click()  # the pool is over: free, and no question asked
    page.get_by_test_id("lobby").wait_for()
    after = wallet(page)
    assert after == before - fee + prize
    chips = page.get_by_test_id("chips")
    wait_until(lambda: chips.get_attribute("data-chips") == str(after), "the chips shown")
    assert not page.js_errors  # type: ignore[attr-defined]
