"""21-card Marriage Rummy in a real browser.

On a 390 px phone: a player sits at a two-seat table, plays a whole deal against the bot (drawing
by tapping the closed deck, throwing the card the solver would throw, declaring when the hand
allows it, showing when the bot declares), and sees the result with the value cards and each
seat's net. On the way: 21 (22) cards fit the screen, every card can be hit, the value cards carry
their badges, and the chips on the result are the game's postings.

At laptop size: two people at one private table each see only their own cards, a reload keeps the
seat, the hand and its arrangement, the value cards in each hand carry their badges, Auto-arrange
says how far each winning shape is, and after a wrong declaration ends the deal the result shows
both seats' value cards and nets.

The table's messages are read off each page's WebSocket (``Frames``), so the tests compare what is
on screen with the view the server sent that very page."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Locator, Page

from conftest import PHONE, SCREENSHOTS, layout_problems, settled, wait_until
from rummyhall.cards import parse
from rummyhall.melds import arrange, hint

ROOM = "marriage21-points-1-2p"
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    return ["--bot-wait", "1", "--bot-think-ms", "40", "--deal-ms", "0", "--next-game-ms", "60000"]


class Frames:
    """The table messages the page received on its WebSockets, each tagged with the socket it
    came on (numbered from 1 as the page opens them): after a reload, the old page's socket can
    still deliver a message or two, so a test looks at the new socket's own messages."""

    def __init__(self, page: Page) -> None:
        self.messages: list[JSON] = []
        self.sockets = 0
        self._socket_of: list[int] = []
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        self.sockets += 1
        number = self.sockets
        ws.on("framereceived", lambda payload: self._frame(number, payload))

    def _frame(self, socket: int, payload: str | bytes) -> None:
        try:
            message = json.loads(payload)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") in ("snapshot", "update"):
            self.messages.append(message)
            self._socket_of.append(socket)

    def after_socket(self, socket: int) -> list[JSON]:
        """The messages of the sockets opened after socket number ``socket``, in order."""
        return [m for m, s in zip(self.messages, self._socket_of, strict=True) if s > socket]

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


def hand_groups(page: Page) -> list[list[str]]:
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll('[data-testid="hand"] [data-testid="group"]')]
            .map(g => [...g.querySelectorAll('[data-testid="hand-card"]')]
                .map(c => c.dataset.card))"""
    )


def card_in_hand(page: Page, card: str) -> Locator:
    return page.locator(f'[data-testid="hand"] [data-testid="hand-card"][data-card="{card}"]').last


def enabled(locator: Locator) -> bool:
    return locator.is_visible() and locator.get_attribute("aria-disabled") == "false"


def faded_in(page: Page) -> None:
    """Wait until the result panel's entrance animation has finished."""
    page.wait_for_function(
        """() => { const panel = document.querySelector('[data-testid="result"]');
            return panel && panel.getAnimations().every(a => a.playState === 'finished'); }"""
    )


def centre_overlaps(page: Page) -> list[str]:
    """The parts of the felt's centre (piles, wild-card words, turn line) that a seat covers."""
    return page.evaluate(  # type: ignore[no-any-return]
        """() => {
            const box = (node) => node.getBoundingClientRect();
            const apart = (a, b) => a.right <= b.left || b.right <= a.left
                || a.bottom <= b.top || b.bottom <= a.top;
            const parts = ['.h13-piles', '.h13-cut-text', '.h13-turn']
                .map((s) => document.querySelector(s)).filter((n) => n && n.offsetWidth);
            const seats = [...document.querySelectorAll('.seat[data-place]')];
            const found = [];
            for (const part of parts) for (const seat of seats) {
                if (!apart(box(part), box(seat)))
                    found.push(`${part.className} under seat ${seat.dataset.place}`);
            }
            return found;
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
    # Once the panel has faded in: mid-animation it is see-through, and the picture says so.
    faded_in(page)
    page.screenshot(path=str(SCREENSHOTS / "marriage21-result-phone.png"))
    # On a phone the panel covers the felt: nothing of it may show through.
    background = result.evaluate("panel => getComputedStyle(panel).backgroundColor")
    assert background.startswith("rgb("), f"the result panel is see-through: {background}"
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


# ---- two people at one table, at laptop size -------------------------------------------------

BADGES = ("CUT", "UP", "LO")


def holding_words(holding: JSON | None) -> str:
    """The result's value-card cell as marriage21.js words it: marriages first, then the single
    value cards left over by kind, and what they collect from each other seat."""
    if not holding:
        return "–"
    marriages = holding["marriages"]
    parts = [f"{marriages} marriage{'s' if marriages > 1 else ''}"] if marriages else []
    for kind, short in (("cut", "cut"), ("upper", "up"), ("lower", "lo")):
        if left := holding[kind] - marriages:
            parts.append(f"{left} {short}")
    return f"{', '.join(parts)} ({holding['worth']})" if parts else "–"


def shape_words(label: str, cards: int) -> str:
    away = (
        "ready to declare" if cards == 0 else "1 card away" if cards == 1 else f"{cards} cards away"
    )
    return f"{label}: {away}"


def test_two_players_at_one_marriage_table(
    new_page: Callable[..., Page],
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    stamp = int(time.time() * 1000) % 10**8
    pages = [new_page(), new_page()]  # laptop size
    frames = [Frames(p) for p in pages]
    for number, page in enumerate(pages):
        sign_up(page, f"wed{number}x{stamp}")
    # New players' 100 silver do not cover a Marriage seat (200): their welcome gold plays.
    created = page_api(pages[0], "POST", "/api/tables", {"room": f"gold-{ROOM}", "private": True})
    assert created["status"] == 201, created
    table = created["body"]["table"]["id"]
    # The second player reaches the private table through its invite; both sit before the bot
    # would take the empty seat.
    opened = page_api(pages[1], "GET", f"/api/invites/{created['body']['invite']}")
    assert opened["status"] == 200, opened
    for page in pages:
        sat = page_api(page, "POST", f"/api/tables/{table}/sit", {"seat": None, "buy_in": None})
        assert sat["status"] == 200, sat
    for page in pages:
        page.goto(f"/#/table/{table}")
    for page in pages:
        page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)

    def dealt(seen: Frames) -> JSON | None:
        view = seen.messages[-1]["view"] if seen.messages else None
        return view if view and len(view.get("hand") or []) == 21 else None

    seats = [seen.messages[-1]["you"] for seen in frames]
    assert None not in seats and len(set(seats)) == 2
    views = [
        wait_until(page, lambda s=seen: dealt(s), "the deal")
        for page, seen in zip(pages, frames, strict=True)
    ]
    assert views[0]["game"] == "marriage21" and views[0]["value_cards"] == views[1]["value_cards"]

    # Each sees only their own cards: the hand on screen is the view's, every card face on the
    # page is one this seat may see (its own or a public one), and what the page knows of the
    # other seat is how many cards it holds.
    for me, (page, seen) in enumerate(zip(pages, frames, strict=True)):
        view, theirs = seen.view(), frames[1 - me].view()
        wait_until(page, lambda p=page, v=view: Counter(hand(p)) == Counter(v["hand"]), "the hand")
        allowed = Counter(view["hand"]) + Counter(view["open"]) + Counter([view["cut"]])
        faces = Counter(
            page.evaluate(
                "() => [...document.querySelectorAll('[data-card]')].map(n => n.dataset.card)"
                ".filter(Boolean)"
            )
        )
        assert not faces - allowed, f"seat {seats[me]} sees {faces - allowed}"
        assert Counter(view["hand"]) != Counter(theirs["hand"])
        for message in seen.messages:
            for entry in (message["view"] or {"seats": []})["seats"]:
                if entry["seat"] != seats[me]:
                    assert entry["shown"] is None and "hand" not in entry
        other = next(e for e in view["seats"] if e["seat"] == seats[1 - me])
        assert other["cards"] == len(theirs["hand"]) == 21

    # A reload brings back the same seat, the same hand and its arrangement (nobody has moved).
    page, seen = pages[0], frames[0]
    arranged = hand_groups(page)
    old_sockets = seen.sockets
    page.reload()
    page.get_by_test_id("hand-card").first.wait_for()
    fresh = wait_until(page, lambda: seen.after_socket(old_sockets), "the new page's messages")
    assert fresh[0]["type"] == "snapshot"
    assert fresh[-1]["table"] == table and fresh[-1]["you"] == seats[0]
    assert Counter(fresh[-1]["view"]["hand"]) == Counter(views[0]["hand"])
    wait_until(page, lambda: hand_groups(page) == arranged, "the arrangement after the reload")

    # Play turns (draw from the closed deck, throw a card that is no value card) until one of
    # the two holds a value card: most deals start so, and then no turn is played.
    values = views[0]["value_cards"]

    def held(me: int) -> int:
        return sum((frames[me].view().get("hand") or []).count(card) for card in values)

    def mover() -> int:
        turn = frames[0].view()["turn"]
        return seats.index(turn)

    def play_a_turn(me: int) -> None:
        page, closed = pages[me], pages[me].get_by_test_id("pile-closed")
        wait_until(page, lambda: enabled(closed), "our turn to draw")
        count = len(hand(page))
        closed.click()
        wait_until(page, lambda: len(hand(page)) == count + 1, "the drawn card")
        view = wait_until(page, lambda: (v := frames[me].view())["drawn"] and v, "the draw's view")
        cards = [parse(c) for c in view["hand"]]
        best = arrange(cards, joker=parse(view["cut"]), profile="marriage21")
        assert best.discard is not None
        throw = str(best.discard)
        if throw in values:
            throw = next(c for c in view["hand"] if c not in values)
        settled(page)
        card_in_hand(page, throw).click(position={"x": 8, "y": 30})
        page.get_by_test_id("action-discard").click()
        wait_until(page, lambda: len(hand(page)) == count, "the discard")
        wait_until(page, lambda: mover() != me, "the other's turn")

    turns = 0
    while not held(0) + held(1):
        assert turns < 80, "no value card reached a hand in 80 turns"
        play_a_turn(mover())
        turns += 1

    # The value cards in each hand carry their badges (CUT, UP, LO), and no other card does.
    for me, page in enumerate(pages):
        view = frames[me].view()
        wait_until(page, lambda p=page, v=view: Counter(hand(p)) == Counter(v["hand"]), "hand")
        settled(page)
        held_cards = hand(page)
        for index, card in enumerate(values):
            badges = page.locator(
                f'[data-testid="hand"] [data-testid="hand-card"][data-card="{card}"] '
                '[data-testid="card-badge"]'
            )
            assert badges.count() == held_cards.count(card), card
            for n in range(badges.count()):
                assert badges.nth(n).get_attribute("data-badge") == BADGES[index]
        every = page.locator('[data-testid="hand"] [data-testid="card-badge"]')
        assert every.count() == sum(held_cards.count(card) for card in values)

    assert centre_overlaps(pages[0]) == []
    screenshot(pages[0], "marriage21-pair-playing")

    # Auto-arrange: the hint's groups and line, and how far each of the four ways to win is.
    page, view = pages[0], frames[0].view()
    advice = hint([parse(c) for c in view["hand"]], joker=parse(view["cut"]), profile="marriage21")
    page.get_by_test_id("action-arrange").click()
    page.get_by_test_id("hint-shapes").wait_for()
    assert page.get_by_test_id("hint-line").inner_text() == advice.summary
    shapes = page.get_by_test_id("hint-shape")
    assert shapes.count() == len(advice.shapes) == 4
    for n, shape in enumerate(advice.shapes):
        entry = shapes.nth(n)
        assert entry.get_attribute("data-shape") == shape.name
        assert entry.get_attribute("data-cards") == str(shape.cards)
        assert entry.inner_text() == shape_words(shape.label, shape.cards)
    settled(page)
    # However many rows the hint's groups take, the felt's centre stays clear of the seats.
    assert centre_overlaps(page) == []
    screenshot(page, "marriage21-hint")

    # The seat to move declares with a hand that is no declaration (it says so first): out of
    # the deal at 120, the other wins, and both exchange value cards.
    me = mover()
    page, closed = pages[me], pages[me].get_by_test_id("pile-closed")
    wait_until(page, lambda: enabled(closed), "our turn to draw")
    count = len(hand(page))
    closed.click()
    wait_until(page, lambda: len(hand(page)) == count + 1, "the drawn card")
    view = wait_until(page, lambda: (v := frames[me].view())["drawn"] and v, "the draw's view")
    best = arrange([parse(c) for c in view["hand"]], joker=parse(view["cut"]), profile="marriage21")
    assert best.discard is not None
    throw = str(best.discard)
    if best.declarable:  # (a rare hand: then the declaration is a good one, with these groups)
        page.get_by_test_id("action-arrange").click()
        wait_until(page, lambda: hand_groups(page)[-1] == [throw], "the solver's groups")
    settled(page)
    card_in_hand(page, throw).click(position={"x": 8, "y": 30})
    page.get_by_test_id("action-declare").click()
    results = [p.get_by_test_id("result") for p in pages]
    if not best.declarable:
        page.get_by_test_id("confirm").wait_for()
        page.get_by_test_id("confirm-yes").click()
    else:
        show = pages[1 - me].get_by_test_id("action-show")
        wait_until(pages[1 - me], lambda: enabled(show), "the show")
        show.click()
    for page, result in zip(pages, results, strict=True):
        result.wait_for()
        faded_in(page)
        # Opaque: the busy felt under it must not show through.
        background = result.evaluate("panel => getComputedStyle(panel).backgroundColor")
        assert background.startswith("rgb("), f"the result panel is see-through: {background}"
    final = wait_until(pages[0], lambda: (v := frames[0].view())["phase"] == "over" and v, "end")
    summary = final["history"][-1]
    assert summary["winner"] == (seats[me] if best.declarable else seats[1 - me])
    # Both seats are in the exchange (a wrong declarer too), and the table says what it pays.
    assert set(summary["values"]) == {str(seat) for seat in seats}
    if not best.declarable:
        # The winner's value cards are those of the hand it held, badges and all.
        kept = frames[1 - me].view()["hand"]
        counted = summary["values"][str(seats[1 - me])]
        assert [counted[kind] for kind in ("cut", "upper", "lower")] == [
            kept.count(card) for card in values
        ]
    for page in pages:
        headings = page.locator('[data-testid="result"] thead th').all_text_contents()
        assert headings[headings.index("Points") + 1 : headings.index("Points") + 3] == [
            "Value",
            "Net",
        ]
        for seat in seats:
            row = page.locator(f'[data-testid="result-row"][data-seat="{seat}"]')
            words = holding_words(summary["values"][str(seat)])
            assert row.get_by_test_id("result-values").inner_text() == words
            net = summary["settlement"][str(seat)]["net"]
            shown = row.get_by_test_id("result-net").inner_text()
            assert shown.startswith(f"{'+' if net > 0 else ''}{net}")
    screenshot(pages[0], "marriage21-pair-result")
    assert not any(page.js_errors for page in pages)  # type: ignore[attr-defined]
