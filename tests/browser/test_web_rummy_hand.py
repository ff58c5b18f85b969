"""The rummy family's shared hand (js/games/rummy/hand.js) with any number of cards: a 21-card
Marriage hand (22 after a draw) on a phone, a 13-card hand at a laptop's size.

No game deals 21 cards yet, so the test renders the real component on its own: a page of the
real server's origin (served by the test itself, through Playwright's routing) links the real
style sheets, imports the real modules and lays the hand out inside the table screen's boxes
(table-screen > felt-wrap, mine > h13-mine). Moving a card goes through the real arrangement
module (moveCard), as the table's view does.

Checked: nothing overflows the viewport; every card shows a strip of 24 px or more that the
pointer hits (document.elementFromPoint there is the card); groups do not overlap and hold their
own cards; a card dragged with the mouse or a finger onto another group lands there. Screenshots:
hand21-phone.png, hand22-phone.png, hand13-desktop.png under $RUMMYHALL_SCREENSHOTS (or
build/screenshots/).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("RUMMYHALL_SCREENSHOTS") or ROOT / "build" / "screenshots")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
STRIP = 24  # px of every card that must stay in view (and under the finger)
JSON = dict[str, Any]

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/css/base.css"><link rel="stylesheet" href="/css/cards.css">
<link rel="stylesheet" href="/css/rummy.css"></head>
<body data-route="table"><header class="topbar"></header>
<main id="app"><section class="table-screen">
  <div class="felt-wrap"><div class="felt"></div></div>
  <div class="mine"><div class="h13-mine"><div class="h13-hand-host" id="host"></div></div></div>
</section></main>
<script type="module">
import * as cards from '/js/cards.js';
import { createHand } from '/js/games/rummy/hand.js';
import { moveCard } from '/js/games/rummy/arrangement.js';

const KINDS = ['pure_sequence', 'impure_sequence', 'set', 'tunnela', 'dublee', 'invalid'];
// Marks as a game would put on its value cards (the cut card is 8H).
const BADGES = {
  '8H': { text: 'CUT', title: 'cut joker' },
  '9H': { text: 'UP', title: 'upper joker' },
  '7H': { text: 'LO', title: 'lower joker' },
};
let groups = [];
let extra = {};
const moves = [];
const hand = createHand(document.getElementById('host'), {
  cards,
  onMove(from, to) {
    moves.push({ from, to });
    groups = moveCard(groups, from, to).groups;
    draw();
  },
  onSelect() {},
  onKey() {},
  onDropOut() {},
});
function draw() {
  hand.render(groups, {
    labels: groups.map((group, g) => ({ kind: KINDS[g % 6], points: 10, counted: g % 6 === 5 })),
    newGroup: extra.newGroup ?? -1,
    selected: null,
    isWild: (card) => card === 'JK' || card.startsWith('8'),
    badge: (card) => BADGES[card] || null,
    fresh: new Set(),
    disabled: false,
    locked: false,
  });
}
window.handTest = {
  show(next, options = {}) { groups = next; extra = options; moves.length = 0; draw(); },
  groups: () => groups,
  moves,
};
</script></body></html>"""

# A 21-card hand (three packs: copies repeat) as the Sort button lays it out: one group per suit,
# the wild cards apart.
SORTED_21 = [
    ["2S", "4S", "5S", "6S", "10S", "KS"],
    ["3H", "7H", "9H", "9H", "QH"],
    ["AC", "4C", "4C", "JC", "KC"],
    ["5D", "6D", "7D"],
    ["JK", "8H"],
]
# 22 cards after a draw: seven groups of three and the card just drawn.
MELDS_22 = [
    ["3S", "4S", "5S"],
    ["7H", "8H", "9H"],
    ["QC", "QC", "QC"],
    ["9D", "10D", "JD"],
    ["AS", "AH", "AD"],
    ["6C", "JK", "8C"],
    ["2H", "2H"],
    ["KD", "KD"],
    ["10S"],
]
# The worst case: 21 cards in one group (wider than a phone).
ONE_GROUP_21 = [[card for group in SORTED_21 for card in group]]
DESKTOP_13 = [
    ["AS", "2S", "3S"],
    ["4H", "5H", "6H", "7H"],
    ["9C", "9D", "9S"],
    ["JK", "KD", "QD"],
    ["10C"],
]

SETTLED = "() => document.getAnimations().every((a) => a.playState !== 'running')"

# Every card of the hand: its box, the strip of it that no later card covers (later cards are
# drawn above it), and whether document.elementFromPoint in that strip finds the card itself.
MEASURE = """() => {
  const nodes = [...document.querySelectorAll('[data-testid="hand-card"]')];
  const boxes = nodes.map((n) => n.getBoundingClientRect());
  const cards = nodes.map((node, i) => {
    const box = boxes[i];
    let right = box.right;
    for (let j = i + 1; j < nodes.length; j += 1) {
      const other = boxes[j];
      const overlaps = other.left < right && other.right > box.left
        && other.top < box.bottom && other.bottom > box.top;
      if (overlaps && other.left > box.left) right = Math.min(right, other.left);
      else if (overlaps) right = box.left;  // covered from its left edge
    }
    const strip = right - box.left;
    const y = box.top + box.height * 0.6;
    const hits = [box.left + 2, box.left + strip / 2, right - 2].map((x) => {
      const under = document.elementFromPoint(x, y);
      return Boolean(under) && under.closest('[data-testid="hand-card"]') === node;
    });
    return {
      card: node.dataset.card, group: Number(node.dataset.group),
      index: Number(node.dataset.index), left: box.left, right: box.right, top: box.top,
      bottom: box.bottom, strip, hit: hits.every(Boolean),
    };
  });
  const groups = [...document.querySelectorAll('[data-testid="group"]')].map((g) => {
    const box = g.getBoundingClientRect();
    return { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
  });
  const hand = document.querySelector('[data-testid="hand"]').getBoundingClientRect();
  return {
    cards, groups, hand: { top: hand.top, bottom: hand.bottom, left: hand.left, right: hand.right },
    width: window.innerWidth, height: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
  };
}"""


def _serve_page(route: Route) -> None:
    route.fulfill(status=200, content_type="text/html; charset=utf-8", body=PAGE)


@pytest.fixture
def hand_page(browser: Browser, server: Any) -> Iterator[Any]:
    """Opens the test page at a viewport size (touch enabled), at the real server's origin."""
    contexts = []

    def open_page(viewport: dict[str, int]) -> Page:
        context = browser.new_context(viewport=viewport, base_url=server.url, has_touch=True)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.js_errors = errors  # type: ignore[attr-defined]
        page.route("**/rummy-hand-test.html", _serve_page)
        page.goto("/rummy-hand-test.html")
        page.wait_for_function("() => Boolean(window.handTest)")
        return page

    try:
        yield open_page
    finally:
        for context in contexts:
            context.close()


def show(page: Page, groups: list[list[str]], new_group: int = -1) -> JSON:
    page.evaluate("([g, n]) => window.handTest.show(g, { newGroup: n })", [groups, new_group])
    page.wait_for_function(SETTLED)
    return page.evaluate(MEASURE)  # type: ignore[no-any-return]


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def check_fits(layout: JSON, groups: list[list[str]]) -> None:
    cards = layout["cards"]
    assert [c["card"] for c in cards] == [card for group in groups for card in group]
    assert layout["scrollWidth"] <= layout["width"], "the page scrolls sideways"
    for c in cards:
        where = f"{c['card']} (group {c['group']}, card {c['index']})"
        assert c["left"] >= 0 and c["right"] <= layout["width"], f"{where} is outside the screen"
        assert c["bottom"] <= layout["height"], f"{where} is below the screen"
        assert c["strip"] >= STRIP - 0.5, f"{where} shows only {c['strip']:.1f} px"
        assert c["hit"], f"{where}: the pointer over its strip does not find it"
    boxes = layout["groups"]
    assert len(boxes) == len(groups)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["right"] <= b["left"] + 1
                or b["right"] <= a["left"] + 1
                or a["bottom"] <= b["top"] + 1
                or b["bottom"] <= a["top"] + 1
            )
            assert apart, f"groups overlap: {a} {b}"
    for c in cards:
        box = boxes[c["group"]]
        inside = box["left"] - 1 <= c["left"] and c["right"] <= box["right"] + 1
        inside = inside and box["top"] - 1 <= c["top"] <= box["bottom"]
        assert inside, f"{c['card']} leaves its group"


@pytest.mark.parametrize(
    ("name", "groups", "new_group"),
    [
        ("hand21", SORTED_21, -1),
        ("hand22", MELDS_22, len(MELDS_22) - 1),
        ("hand21-one-group", ONE_GROUP_21, -1),
    ],
)
def test_a_21_or_22_card_hand_fits_a_phone(
    hand_page: Any, name: str, groups: list[list[str]], new_group: int
) -> None:
    page = hand_page(PHONE)
    layout = show(page, groups, new_group)
    shot(page, f"{name}-phone")
    check_fits(layout, groups)
    # Readable: a phone shows such a hand in three rows of cards at most, under the felt.
    tops = sorted({round(c["top"]) for c in layout["cards"]})
    assert len(tops) <= 3, f"{len(tops)} rows of cards"
    assert layout["hand"]["bottom"] - layout["hand"]["top"] < layout["height"] * 0.4
    assert page.js_errors == []  # type: ignore[attr-defined]


def drag_points(layout: JSON, card: str, onto_group: int) -> tuple[float, float, float, float]:
    """From the middle of `card`'s strip to the middle of the last card's strip of a group."""
    source = next(c for c in layout["cards"] if c["card"] == card)
    target = [c for c in layout["cards"] if c["group"] == onto_group][-1]
    return (
        source["left"] + source["strip"] / 2,
        source["top"] + 40,
        target["left"] + min(target["strip"], 40) - 4,  # right part: after that card
        target["top"] + 40,
    )


def where(page: Page, card: str) -> list[int]:
    groups = page.evaluate("window.handTest.groups()")
    return [g for g, group in enumerate(groups) if card in group]


def test_a_card_dragged_with_the_mouse_joins_another_group(hand_page: Any) -> None:
    page = hand_page(PHONE)
    layout = show(page, MELDS_22, len(MELDS_22) - 1)
    # The drawn card (the last group, on the last row) onto the second group, on the first row.
    x0, y0, x1, y1 = drag_points(layout, "10S", 1)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + 10, y0 - 10)  # past the drag threshold
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()
    page.wait_for_function("() => window.handTest.moves.length === 1")
    assert where(page, "10S") == [1]
    assert page.evaluate("window.handTest.groups()")[1] == ["7H", "8H", "9H", "10S"]
    page.wait_for_function(SETTLED)
    page.mouse.move(0, 0)  # off the cards: no hover lift
    check_fits(page.evaluate(MEASURE), page.evaluate("window.handTest.groups()"))


def test_a_card_dragged_with_a_finger_joins_another_group(hand_page: Any) -> None:
    page = hand_page(PHONE)
    layout = show(page, SORTED_21)
    # The upper joker (hearts, first row) down onto the diamonds, on a lower row.
    x0, y0, x1, y1 = drag_points(layout, "9H", 3)
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x0, y0)
    for step in range(1, 9):
        touch("touchMove", x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8)
    touch("touchEnd", x1, y1)
    page.wait_for_function("() => window.handTest.moves.length === 1")
    groups = page.evaluate("window.handTest.groups()")
    assert groups[3] == ["5D", "6D", "7D", "9H"]
    assert groups[1] == ["3H", "7H", "9H", "QH"]  # one of the two copies moved
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_13_card_hand_at_a_laptop_is_one_row(hand_page: Any) -> None:
    page = hand_page(DESKTOP)
    layout = show(page, DESKTOP_13)
    shot(page, "hand13-desktop")
    check_fits(layout, DESKTOP_13)
    assert len({round(c["top"]) for c in layout["cards"]}) == 1
