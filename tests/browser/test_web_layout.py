"""The layout of every screen at phone (390x844) and desktop (1366x768) size: the named parts of
the screen (top bar links, seat badges, piles, the wild-joker label, your hand, the buttons, the
result panel's columns...) must not overlap one another, and none may be cut off (outside the
viewport, clipped by a box that hides its overflow, or a text cell whose text does not fit).

Screens: the lobby; a 13-card table in the middle of a deal (2, 4 and 6 seats), the same table
while a bot's declaration is shown and you are asked for your groups, and its result; a Rummy
Patti table in the middle of a hand and its showdown.

The parts are measured in the page (``page.evaluate``) once the layout has settled: every finite
animation and transition has ended. Screenshots of each screen go to build/screenshots/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Page

JSON = dict[str, Any]
DESKTOP = {"width": 1366, "height": 768}  # the sizes of the screenshot fixture
PHONE = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
TOLERANCE = 1.0  # px: borders and sub-pixel rounding of neighbours that touch


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # Bots fill the empty seats at once and think briefly; a finished game stays on the table
    # for a minute, long enough to measure its result. The test may open several tables in a row
    # (a table left mid-game closes only once the bots have finished its game): a higher cap.
    # A seat left mid-game keeps its chips until that game ends, so a player going on to another
    # table pays a buy-in again from what is left: a new player's 100 silver covered only the
    # first table of the 13-card room (160 a seat, 80 at least), and CI once failed at the
    # second (insufficient_chips). 2,000 covers the eleven tables that test may open.
    return [
        "--bot-wait", "0", "--bot-think-ms", "30", "--deal-ms", "0", "--next-game-ms", "60000",
        "--tables-per-account", "12", "--starting-silver", "2000",
    ]  # fmt: skip


@dataclass(frozen=True)
class Part:
    """A named part of a screen: every visible element ``css`` matches (each its own part, named
    after its data-testid or its index), or with ``union`` one part covering them all.
    ``text``: its text must fit its box; ``required``: the screen must show it."""

    name: str
    css: str
    text: bool = False
    required: bool = False
    union: bool = False


@dataclass
class Faults:
    items: list[str] = field(default_factory=list)

    def add(self, screen: str, size: str, text: str) -> None:
        self.items.append(f"{screen} ({size}): {text}")

    def check(self) -> None:
        assert not self.items, "layout faults:\n" + "\n".join(self.items)


# ---- the parts of each screen -----------------------------------------------------------------

TOPBAR = [
    Part("brand", ".topbar .brand"),
    Part("nav-lobby", '[data-testid="nav-lobby"]', text=True, required=True),
    Part("nav-history", '[data-testid="nav-history"]', text=True, required=True),
    Part("player-name", ".topbar .who-name", required=True),
    # the wallets: real chips (a player's) and practice chips (a guest's only ones)
    Part(
        "wallet", '[data-testid="chips"], [data-testid="practice-chips"]', text=True, required=True
    ),
    Part("refill", '[data-testid="practice-refill"]', text=True),
    Part("logout", '[data-testid="logout"]', text=True, required=True),
]

LOBBY = [
    *TOPBAR,
    Part("lobby-title", ".lobby-head h1", required=True),
    Part("lobby-intro", ".lobby-head p"),
    Part("invite-input", '[data-testid="invite-input"]', required=True),
    Part("invite-open", '[data-testid="invite-open"]', text=True, required=True),
    Part("room-title", ".room-head h3", text=True),
    Part("room-seats", ".room-seats", text=True),
    Part("quick-seat", '[data-testid^="quick-seat-"]', text=True, required=True),
    Part("private", '[data-testid^="create-private-"]', text=True),
    Part("how-to-play", '[data-testid^="how-to-play-"]', text=True),
]

TABLE_HEADER = [
    Part("back-to-lobby", '[data-testid="back-to-lobby"]', text=True, required=True),
    Part("table-title", '[data-testid="table-title"]'),
    Part("practice", '[data-testid="table-practice"]', text=True),
    Part("pot", '[data-testid="pot"]', text=True),
    Part("game-no", '[data-testid="game-no"]', text=True),
    Part("fair", '[data-testid="fair"]', text=True),
    Part("how-to-play", '[data-testid="table-how-to-play"]', text=True, required=True),
    Part("auto-rebuy", ".auto-rebuy", text=True, required=True),
    Part("leave", '[data-testid="leave"]', text=True, required=True),
]

SEATS = [
    Part("seat", '.seat[data-testid^="seat-"]', required=True),
    Part("table-status", '[data-testid="table-status"]'),
]

INDIAN13 = [
    *TOPBAR,
    *TABLE_HEADER,
    *SEATS,
    Part("closed-pile", '[data-testid="pile-closed"]', required=True),
    Part("pile-count", '[data-testid="pile-count"]', text=True),
    Part("cut-joker", '[data-testid="cut-joker"] .card', required=True),
    Part("wild-label", ".h13-cut-text", required=True),
    Part("open-pile", '[data-testid="pile-open"]', required=True),
    Part("open-cards", '[data-testid="action-open-cards"]', text=True),
    Part("finish-slot", '[data-testid="finish-slot"]', required=True),
    Part("last-result", '[data-testid="action-last-result"]', text=True),
    Part("pile-name", ".h13-pile-name", text=True),
    Part("turn-info", '[data-testid="turn-info"]'),
    Part("declared", '[data-testid="declared-groups"]'),
    Part("hand-score", '[data-testid="hand-score"]', text=True),
    Part("declarable", '[data-testid="declarable"]', text=True),
    Part("tool", ".h13-tools .btn", text=True),
    Part("hand", '.h13-mine [data-testid="hand"]'),
    Part("show-text", ".h13-show-text"),
    Part("show-timer", '[data-testid="show-timer"]', text=True),
    Part("action-show", '[data-testid="action-show"]', text=True),
    Part("action", ".h13-actions .btn", text=True),
    Part("out-note", ".h13-out"),
]

# While everyone shows their groups nobody declares: the finish slot may give way on a phone.
INDIAN13_SHOW = [
    Part(p.name, p.css, text=p.text) if p.name == "finish-slot" else p for p in INDIAN13
]

INDIAN13_RESULT = [
    *TOPBAR,
    *TABLE_HEADER,
    Part("result", '[data-testid="result"]', required=True),
    Part("result-headline", '[data-testid="result-headline"]', text=True, required=True),
    Part("result-close", '[data-testid="result-close"]', text=True, required=True),
    Part("result-heading", ".h13-result-table thead th", text=True, required=True),
    Part("result-name", ".h13-result-table tbody .who .name", required=True),
    Part("result-how", ".h13-result-table tbody .who .how"),
    Part("result-cards", ".h13-result-table tbody td.cards"),
    Part("result-points", '[data-testid="result-points"]', text=True, required=True),
    Part("result-chips", '[data-testid="result-chips"]', text=True, required=True),
]

PATTI = [
    *TOPBAR,
    *TABLE_HEADER,
    *SEATS,
    Part("seat-marks", '[data-testid^="patti-seat-"]'),
    Part("pot", ".patti-pot", required=True),
    Part("open-card", 'figure:has([data-testid="pile-open"])', required=True),
    Part("closed-card", 'figure:has([data-testid="pile-closed"])', required=True),
    Part("chaal-amount", '[data-testid="chaal-amount"]'),
    Part("patti-status", '[data-testid="patti-status"]'),
    Part("hand", '.patti-mine [data-testid="hand"]', required=True),
    Part("hand-class", '[data-testid="hand-class"]'),
    Part("move", '[data-testid="actions"] .patti-actions-main .btn', text=True),
    Part("exchange", ".patti-exchange"),
    Part("hint", '[data-testid="action-hint"]'),
]

PATTI_RESULT = [
    *TOPBAR,
    *TABLE_HEADER,
    *SEATS,
    Part("seat-marks", '[data-testid^="patti-seat-"]'),
    Part("result-title", ".patti-result-title", text=True, required=True),
    Part("result-player", ".patti-result-name", text=True),
    Part("result-cards", ".patti-result-cards"),
    Part("result-class", ".patti-result-class", text=True),
    Part("result-crown", ".patti-result-crown"),
    Part("result-winner", '[data-testid="result-winner"]', required=True),
    Part("result-me", '[data-testid="result-me"]'),
    Part("hand", '.patti-mine [data-testid="hand"]'),
    Part("hand-class", '[data-testid="hand-class"]'),
]

# Every visible element of each part: its box, and why it is cut off (if it is). A box that
# clips its overflow (hidden, clip, auto, scroll) cuts off what sticks out of it; the page itself
# scrolls, except at the table, where the body hides its overflow.
MEASURE = """(parts) => {
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const shown = (node) => {
        const r = node.getBoundingClientRect();
        return r.width > 0 && r.height > 0
            && node.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
    };
    const describe = (node) => node.dataset.testid ? `[data-testid=${node.dataset.testid}]`
        : `${node.tagName.toLowerCase()}.${[...node.classList].join('.')}`;
    const clipped = (node) => {
        const r = node.getBoundingClientRect();
        const why = [];
        let scrolled = false; // up and down: inside a list that scrolls, all of it is reachable
        for (let a = node.parentElement; a && a !== document.documentElement; a = a.parentElement) {
            const s = getComputedStyle(a);
            if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
            const box = a.getBoundingClientRect();
            const left = box.left + a.clientLeft, top = box.top + a.clientTop;
            const right = left + a.clientWidth, bottom = top + a.clientHeight;
            if (s.overflowX !== 'visible' && (r.left < left - 1 || r.right > right + 1)) {
                why.push(`sticks out of ${describe(a)} sideways (${Math.round(r.left)}..`
                    + `${Math.round(r.right)} in ${Math.round(left)}..${Math.round(right)})`);
            }
            const hides = s.overflowY === 'hidden' || s.overflowY === 'clip';
            if (hides && !scrolled && (r.top < top - 1 || r.bottom > bottom + 1)) {
                why.push(`sticks out of ${describe(a)} up or down (${Math.round(r.top)}..`
                    + `${Math.round(r.bottom)} in ${Math.round(top)}..${Math.round(bottom)})`);
            }
            if (s.overflowY === 'auto' || s.overflowY === 'scroll') scrolled = true;
        }
        return why;
    };
    const out = [];
    const missing = [];
    const nodesOf = [];
    for (const part of parts) {
        const nodes = [...document.querySelectorAll(part.css)].filter(shown);
        if (!nodes.length) {
            if (part.required) missing.push(part.name);
            continue;
        }
        const groups = part.union ? [nodes] : nodes.map((node) => [node]);
        groups.forEach((group, i) => {
            const rects = group.map((node) => node.getBoundingClientRect());
            const box = {
                left: Math.min(...rects.map((r) => r.left)),
                top: Math.min(...rects.map((r) => r.top)),
                right: Math.max(...rects.map((r) => r.right)),
                bottom: Math.max(...rects.map((r) => r.bottom)),
            };
            const id = group[0].dataset.testid;
            const name = groups.length === 1 ? part.name
                : `${part.name}[${id && id !== part.name ? id : i}]`;
            const cut = [];
            if (box.left < -1 || box.right > vw + 1) {
                cut.push(`outside the viewport sideways (${Math.round(box.left)}..`
                    + `${Math.round(box.right)} of ${vw})`);
            }
            for (const node of group) {
                if (part.text && node.scrollWidth > node.clientWidth + 1) {
                    cut.push(`its text does not fit (${node.scrollWidth} px in ${node.clientWidth}:`
                        + ` "${node.textContent.trim()}")`);
                }
                cut.push(...clipped(node));
            }
            out.push({name, box, cut});
            nodesOf.push(group);
        });
    }
    // A part inside another (a cell in the result panel) is not an overlap.
    const nested = [];
    nodesOf.forEach((outer, i) => nodesOf.forEach((inner, j) => {
        if (i !== j && inner.some((n) => outer.some((o) => o !== n && o.contains(n)))) {
            nested.push([out[i].name, out[j].name]);
        }
    }));
    return {parts: out, missing, nested, vw, vh};
}"""

# Wait until every finite animation and transition is over (cards dealt, a panel popping in,
# the layout after a resize); the endless ones (a glowing pile, a pulsing button) may go on, and
# so may the seats' timer rings, which the shell moves on every tick. (getAnimations brings the
# styles up to date first, so a transition that a resize starts is seen.)
SETTLED = """() => document.getAnimations().every((a) => a.playState !== 'running'
    || a.effect.getComputedTiming().iterations === Infinity
    || a.transitionProperty === 'stroke-dashoffset')"""


def overlap(a: JSON, b: JSON) -> bool:
    wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
    high = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return wide > TOLERANCE and high > TOLERANCE


def measure(page: Page, parts: list[Part], size: dict[str, int]) -> JSON:
    page.set_viewport_size(size)
    page.wait_for_function(SETTLED)
    answer: JSON = page.evaluate(
        MEASURE,
        [
            {"name": p.name, "css": p.css, "text": p.text, "required": p.required, "union": p.union}
            for p in parts
        ],
    )
    return answer


def check_layout(
    page: Page,
    screenshot: Callable[..., Any],
    screen: str,
    parts: list[Part],
    faults: Faults,
    *,
    apart: Callable[[str, str], bool] = lambda a, b: False,
) -> None:
    """Measure ``parts`` at both sizes and note every overlap and every part cut off;
    ``apart(a, b)`` is true for the pairs that are meant to overlap."""
    before = page.viewport_size or DESKTOP
    for label, size in SIZES.items():
        found = measure(page, parts, size)
        for name in found["missing"]:
            faults.add(screen, label, f"{name} is not shown")
        boxes = found["parts"]
        nested = {frozenset(pair) for pair in found["nested"]}
        for part in boxes:
            for why in part["cut"]:
                faults.add(screen, label, f"{part['name']} is cut off: {why}")
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                if frozenset((a["name"], b["name"])) in nested or apart(a["name"], b["name"]):
                    continue
                if overlap(a["box"], b["box"]):
                    faults.add(
                        screen,
                        label,
                        f"{a['name']} {rounded(a['box'])} overlaps {b['name']} {rounded(b['box'])}",
                    )
    page.set_viewport_size(before)
    screenshot(page, f"layout-{screen}")


def rounded(box: JSON) -> str:
    return "({left:.0f},{top:.0f})-({right:.0f},{bottom:.0f})".format(**box)


# ---- driving the games ------------------------------------------------------------------------

INDIAN13_STATE = """() => {
    const shown = (id) => { const n = document.querySelector(`[data-testid="${id}"]`);
        return Boolean(n && n.checkVisibility()); };
    if (shown('result')) return 'result';
    if (shown('show-banner')) return 'show';
    const closed = document.querySelector('[data-testid="pile-closed"]');
    if (closed && closed.getAttribute('aria-disabled') === 'false') return 'draw';
    return false;
}"""

ONLY_YOU_AWAITED = """() => {
    const active = [...document.querySelectorAll('.seat[data-active="true"]')];
    return active.length === 1 && active[0].dataset.you === 'true';
}"""


def indian13_state(page: Page) -> str:
    return str(page.wait_for_function(INDIAN13_STATE, timeout=30_000).json_value())


def hand_size(page: Page) -> int:
    return page.get_by_test_id("hand-card").count()


def play_a_turn(page: Page) -> None:
    """Draw from the closed deck and throw the card drawn: the bots make the running."""
    page.get_by_test_id("pile-closed").click()
    page.locator(".h13-card.h13-fresh").wait_for()
    page.locator(".h13-card.h13-fresh").click()
    page.wait_for_function(
        """() => { const b = document.querySelector('[data-testid="action-discard"]');
            return b && b.getAttribute('aria-disabled') === 'false'; }"""
    )
    page.get_by_test_id("action-discard").click()
    page.wait_for_function(
        """() => document.querySelectorAll('[data-testid="hand-card"]').length === 13
            || document.querySelector('[data-testid="confirm"]')"""
    )
    if page.get_by_test_id("confirm").count():  # the card drawn is a wild joker: asked first
        page.get_by_test_id("confirm-yes").click()
        page.wait_for_function(
            """() => document.querySelectorAll('[data-testid="hand-card"]').length === 13"""
        )


def another_table(page: Page, page_api: Callable[..., Any], room: str) -> None:
    """Leave this table for a new private table of ``room`` (bots fill its seats)."""
    table = int(page.get_by_test_id("table").get_attribute("data-table") or 0)
    page_api(page, "POST", f"/api/tables/{table}/leave")
    created = page_api(page, "POST", "/api/tables", {"room": room, "private": True})
    assert created["status"] == 201, created
    fresh = created["body"]["table"]["id"]
    # (another: the seat left may be held until its game ends)
    sat = page_api(page, "POST", f"/api/tables/{fresh}/sit", {"another": True})
    assert sat["status"] == 200, sat
    page.goto(f"/#/table/{fresh}")
    page.locator(f'[data-testid="table"][data-table="{fresh}"]').wait_for()
    page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)


def by_design(a: str, b: str) -> bool:
    """The pairs of the 13-card table that overlap on purpose: the cut card lies under the closed
    deck; on a narrow table with seats at the sides, the "open cards" button is a count badge on
    the open pile's corner (js/games/indian13.js, css/indian13.css)."""
    return {a, b} in ({"closed-pile", "cut-joker"}, {"open-pile", "open-cards"})


def narrow_by_design(page: Page) -> Callable[[str, str], bool]:
    many = page.locator(".h13-centre.h13-many").count() > 0
    return lambda a, b: {a, b} == {"closed-pile", "cut-joker"} or (many and by_design(a, b))


# ---- the tests --------------------------------------------------------------------------------


def test_the_lobby(
    page: Page, play_as_guest: Callable[[Page], None], screenshot: Callable[..., Any]
) -> None:
    faults = Faults()
    play_as_guest(page)
    page.locator('[data-testid^="quick-seat-"]').first.wait_for()
    check_layout(page, screenshot, "lobby", LOBBY, faults)
    faults.check()


@pytest.mark.parametrize(
    "room",
    [
        "practice-indian13-classic-points-1-2p",
        "indian13-vengala-points-1-4p",
        "practice-indian13-classic-points-1-6p",
    ],
)
def test_a_13_card_table(
    page: Page,
    room: str,
    play_as_guest: Callable[[Page], None],
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    """The deal in play (your turn to draw), a bot's declaration shown while you arrange your
    groups, then the result. (A guest in the practice rooms; a player with both wallets in the
    top bar in a room for real chips, which has no practice twin.)"""
    faults = Faults()
    seats = room.rsplit("-", 1)[1]
    if room.startswith("practice-"):
        play_as_guest(page)
    else:
        sign_up(page, f"layout{seats}")
    page.get_by_test_id(f"quick-seat-{room}").click()
    # Your first turn; a bot may end the deal before it (a drop): then on to another table.
    for _table in range(6):
        page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
        page.wait_for_function(
            f"""() => document.querySelectorAll('.seat[data-empty="false"]').length
                === {int(seats[:-1])}"""
        )
        state = indian13_state(page)
        if state == "draw":
            break
        another_table(page, page_api, room)
    assert state == "draw", f"every deal ended before your first turn ({state})"
    check_layout(
        page, screenshot, f"indian13-{seats}-deal", INDIAN13, faults, apart=narrow_by_design(page)
    )

    # Play on (drawing and throwing) until a bot declares and everyone shows their groups; if
    # the deal ends otherwise (a bot drops or declares wrongly), on to another table.
    for _table in range(4):
        for _turn in range(60):
            state = indian13_state(page)
            if state != "draw":
                break
            play_a_turn(page)
        if state == "show":
            break
        another_table(page, page_api, room)
    assert state == "show", f"no bot declared ({state})"
    page.wait_for_function(ONLY_YOU_AWAITED)
    page.get_by_test_id("declared-groups").wait_for()
    check_layout(
        page,
        screenshot,
        f"indian13-{seats}-show",
        INDIAN13_SHOW,
        faults,
        apart=narrow_by_design(page),
    )

    # Show all 13 cards as one group (a player may): the longest row of cards a result can
    # have, which must not push the chips column out of the panel.
    table = int(page.get_by_test_id("table").get_attribute("data-table") or 0)
    held = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"hand-card\"]')]"
        ".map((n) => n.dataset.card)"
    )
    page.evaluate(
        "([table, action]) => window.rummyhall.socket.act(table, action)",
        [table, "show " + " ".join(held)],
    )
    page.get_by_test_id("result").wait_for()
    check_layout(page, screenshot, f"indian13-{seats}-result", INDIAN13_RESULT, faults)
    faults.check()
    assert not page.js_errors  # type: ignore[attr-defined]


PATTI_STATE = """() => {
    const shown = (id) => { const n = document.querySelector(`[data-testid="${id}"]`);
        return Boolean(n && n.checkVisibility()); };
    if (shown('result')) return 'result';
    const ready = (id) => { const n = document.querySelector(`[data-testid="${id}"]`);
        return Boolean(n && n.checkVisibility() && !n.disabled); };
    if (ready('action-accept')) return 'asked';
    if (ready('action-show')) return 'show';
    if (ready('action-chaal')) return 'chaal';
    return false;
}"""


@pytest.mark.parametrize("room", ["practice-patti-10-4p", "practice-patti-10-5p"])
def test_a_patti_table(
    page: Page,
    room: str,
    play_as_guest: Callable[[Page], None],
    screenshot: Callable[..., Any],
) -> None:
    """The hand in play (your turn), then its showdown: you call chaal until a show is possible,
    then show."""
    faults = Faults()
    seats = room.rsplit("-", 1)[1]
    play_as_guest(page)
    page.get_by_test_id(f"quick-seat-{room}").click()
    page.get_by_test_id("patti-centre").wait_for()
    state = str(page.wait_for_function(PATTI_STATE, timeout=30_000).json_value())
    assert state in ("chaal", "show"), f"the hand ended before your first turn ({state})"
    check_layout(page, screenshot, f"patti-{seats}-hand", PATTI, faults)

    for _turn in range(60):
        state = str(page.wait_for_function(PATTI_STATE, timeout=30_000).json_value())
        if state == "result":
            break
        seq = page.get_by_test_id("table").get_attribute("data-seq")
        page.get_by_test_id(
            {"asked": "action-accept", "show": "action-show", "chaal": "action-chaal"}[state]
        ).click()
        page.wait_for_function(
            "(seq) => document.querySelector('[data-testid=\"table\"]').dataset.seq !== seq",
            arg=seq,
        )
    assert state == "result", "the hand did not end"
    # The table's game is over once it says the next one is coming.
    page.wait_for_function(
        """() => ['result', 'table-status'].every((id) => {
            const node = document.querySelector(`[data-testid="${id}"]`);
            return node && node.checkVisibility(); })"""
    )
    check_layout(page, screenshot, f"patti-{seats}-result", PATTI_RESULT, faults)
    faults.check()
    assert not page.js_errors  # type: ignore[attr-defined]
