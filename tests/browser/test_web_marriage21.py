"""21-card Marriage Rummy in a real browser, on a 390 px phone: a player sits at a two-seat table,
plays a whole deal against the bot (drawing by tapping the closed deck, throwing the card the
solver would throw, declaring when the hand allows it, showing when the bot declares), and sees
the result with the value cards and each seat's net. On the way: 21 (22) cards fit the screen,
every card can be hit, the value cards carry their badges, and the chips on the result are the
game's postings."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from conftest import PHONE, SCREENSHOTS
from rummyhall.cards import parse
from rummyhall.melds import arrange

ROOM = "marriage21-points-1-2p"
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    return ["--bot-wait", "1", "--bot-think-ms", "40", "--deal-ms", "0", "--next-game-ms", "60000"]


class Frames:
    """The table messages the page received on its WebSocket."""

    def __init__(self, page: Page) -> None:
        self.messages: list[JSON] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: str | bytes) -> None:
        try:
            message = json.loads(payload)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") in ("snapshot", "update"):
            self.messages.append(message)

    def view(self) -> JSON:
        assert self.messages, "no table message yet"
        view = self.messages[-1]["view"]
        assert view is not None
        return view  # type: ignore[no-any-return]


def hand(page: Page) -> list[str]:
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll('[data-testid="hand"] [data-testid="hand-card"]')]
            .map(c => c.dataset.card)"""
    )


def wait_until(page: Page, check: Callable[[], Any], what: str, timeout: float = 20) -> Any:
    """Wait for a state of the page (or of the frames it received): checked between short waits
    inside the page, so that Playwright keeps handing over the page's WebSocket frames."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(40)
    return value


def layout_problems(page: Page) -> list[str]:
    """What is wrong with the hand on the phone: sideways scrolling, a card off the screen, a
    card whose visible strip is too narrow to touch or is covered by something else."""
    return page.evaluate(  # type: ignore[no-any-return]
        """() => {
            const problems = [];
            if (document.documentElement.scrollWidth > window.innerWidth + 1)
                problems.push(`page scrolls sideways: ${document.documentElement.scrollWidth}`);
            const cards = [...document.querySelectorAll(
                '[data-testid="hand"] [data-testid="hand-card"]')];
            cards.forEach((card, i) => {
                const box = card.getBoundingClientRect();
                if (box.left < 0 || box.right > window.innerWidth + 1)
                    problems.push(`card ${card.dataset.card} off the screen`);
                const next = cards[i + 1];
                let visible = box.width;
                if (next) {
                    const other = next.getBoundingClientRect();
                    if (Math.abs(other.top - box.top) < 4 && other.left > box.left)
                        visible = Math.min(visible, other.left - box.left);
                }
                // 24 px, give or take the layout's rounding (23.99998 px)
                if (visible < 23.5) problems.push(`card ${card.dataset.card} shows ${visible}px`);
                card.scrollIntoView({block: 'nearest'});
                const again = card.getBoundingClientRect();
                const hit = document.elementFromPoint(again.left + 6, again.top + again.height / 2);
                if (!hit || hit.closest('[data-testid="hand-card"]') !== card)
                    problems.push(`card ${card.dataset.card} cannot be touched`);
            });
            return problems;
        }"""
    )


def test_a_marriage_deal_on_a_phone(
    page: Page, sign_up: Callable[..., None], page_api: Callable[..., Any]
) -> None:
    page.set_viewport_size(PHONE)
    frames = Frames(page)
    sign_up(page, f"mira{int(time.time() * 1000) % 10**8}")
    page.get_by_test_id(f"quick-seat-{ROOM}").click()
    page.get_by_test_id("table").wait_for()
    page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
    you = frames.messages[-1]["you"]
    view = wait_until(page, lambda: (v := frames.view()) and v.get("hand") and v, "the deal")
    assert view["game"] == "marriage21" and len(view["value_cards"]) == 3

    result = page.get_by_test_id("result")
    closed = page.get_by_test_id("pile-closed")
    shot = checked = False
    deadline = time.monotonic() + 150
    while not result.is_visible():
        assert time.monotonic() < deadline, "the deal did not end in time"
        show = page.get_by_test_id("action-show")
        if show.is_visible() and show.get_attribute("aria-disabled") == "false":
            show.click()
            page.wait_for_timeout(150)
            continue
        if not (closed.is_visible() and closed.get_attribute("aria-disabled") == "false"):
            page.wait_for_timeout(60)
            continue
        count = len(hand(page))
        closed.click()
        wait_until(page, lambda n=count: len(hand(page)) == n + 1 or result.is_visible(), "draw")
        if result.is_visible():
            break
        view = frames.view()
        held = hand(page)
        assert sorted(held) == sorted(view["hand"]) and len(held) == 22
        if not checked:
            # 22 cards on a 390 px phone: nothing off the screen, every card can be touched,
            # and every value card in the hand carries its badge. (Once the drawn card has slid
            # into place: mid-animation another card can be under a card's strip.)
            page.wait_for_function(
                """() => !document.getAnimations().some(a => a.playState === 'running'
                    && a.effect && a.effect.target && a.effect.target.closest
                    && a.effect.target.closest('[data-testid="hand"]'))"""
            )
            assert layout_problems(page) == []
            for index, card in enumerate(view["value_cards"]):
                badges = page.locator(
                    f'[data-testid="hand"] [data-testid="hand-card"][data-card="{card}"] '
                    '[data-testid="card-badge"]'
                )
                assert badges.count() == held.count(card), card
                if badges.count():
                    assert badges.first.get_attribute("data-badge") == ("CUT", "UP", "LO")[index]
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "marriage21-playing-phone.png"))
            checked = True
        best = arrange([parse(c) for c in held], joker=parse(view["cut"]), profile="marriage21")
        assert best.discard is not None
        throw = str(best.discard)
        card = page.locator(
            f'[data-testid="hand"] [data-testid="hand-card"][data-card="{throw}"]'
        ).last
        if best.declarable:
            page.get_by_test_id("action-arrange").click()
            page.wait_for_timeout(200)
            card = page.locator(
                f'[data-testid="hand"] [data-testid="hand-card"][data-card="{throw}"]'
            ).last
            card.click(position={"x": 6, "y": 20})
            page.get_by_test_id("action-declare").click()
        else:
            card.click(position={"x": 6, "y": 20})
            page.get_by_test_id("action-discard").click()
        wait_until(page, lambda n=count: len(hand(page)) == n or result.is_visible(), "the throw")
        shot = shot or result.is_visible()

    result.wait_for()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "marriage21-result-phone.png"))
    view = wait_until(page, lambda: (v := frames.view())["phase"] == "over" and v, "the end")
    summary = view["history"][-1]
    settlement = summary["settlement"]
    rows = page.get_by_test_id("result-row")
    assert rows.count() == 2
    mine = page.locator(f'[data-testid="result-row"][data-seat="{you}"]')
    net = settlement[str(you)]["net"]
    assert (
        mine.get_by_test_id("result-net").inner_text().startswith(f"{'+' if net > 0 else ''}{net}")
    )
    assert mine.get_by_test_id("result-values").is_visible()
    amount = int(mine.get_by_test_id("result-chips").get_attribute("data-amount") or 0)
    postings = view["result"]["postings"]
    assert amount == sum(p["amount"] for p in postings if p["account"] == f"seat:{you}")
    assert amount == net  # one chip a point
    hands = page_api(page, "GET", "/api/hands")["body"]["hands"]
    record = page_api(page, "GET", f"/api/hands/{hands[0]['id']}")["body"]["record"]
    assert record["game"] == "marriage21"
    assert not page.js_errors  # type: ignore[attr-defined]
