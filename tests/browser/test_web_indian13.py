"""The 13-card table in a real browser: a new player arranges their hand by drag and drop, plays
a whole deal against a bot (drawing and discarding by click and by drag, choosing discards with
the solver), declares or drops, and sees the result; the chips shown agree with the wallet and
the game's record. A reload in the middle of the deal brings back the table and the player's
own arrangement; two players at one table each see only their own cards.

The table's messages are read off the page's WebSocket (``Frames``), so the tests compare the
cards on screen with the view the server sent to that very page."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Locator, Page

from rummyhall.cards import parse
from rummyhall.melds import arrange, hint

ROOM = "indian13-classic-points-1-2p"
PROFILE = "indian13/classic"
FIRST_DROP, MIDDLE_DROP = 20, 40  # classic points (docs/rules)
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # Bots fill a seat 1.5 s after a human sits (time enough for a second human to sit first),
    # think briefly, and the finished game stays on the table for a minute. A new player gets
    # 2,000 silver: the keyboard test may lose a deal and go on to another table (see there),
    # and 100 silver covers one seat of its room.
    return [
        "--starting-silver",
        "2000",
        "--bot-wait",
        "1.5",
        "--bot-think-ms",
        "40",
        "--deal-ms",
        "0",
        "--next-game-ms",
        "60000",
    ]


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

    @property
    def last(self) -> JSON:
        assert self.messages, "no table message yet"
        return self.messages[-1]

    def view(self) -> JSON:
        view = self.last["view"]
        assert view is not None
        return view  # type: ignore[no-any-return]


# ---- reading the page --------------------------------------------------------------------------


def hand_groups(page: Page) -> list[list[str]]:
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll('[data-testid="hand"] [data-testid="group"]')]
            .map(g => [...g.querySelectorAll('[data-testid="hand-card"]')]
                .map(c => c.dataset.card))"""
    )


def group_kinds(page: Page) -> list[str]:
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll('[data-testid="hand"] [data-testid="group"]')]
            .map(g => g.dataset.kind)"""
    )


def flat(groups: list[list[str]]) -> list[str]:
    return [card for group in groups for card in group]


def wait_until(check: Callable[[], Any], what: str, timeout: float = 15) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def pumped(page: Page, check: Callable[[], Any], what: str, timeout: float = 15) -> Any:
    """wait_until for a check of the Frames alone: Playwright hands over the page's WebSocket
    frames only while one of its calls runs, so this waits in the page, not in time.sleep."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(40)
    return value


def labelled(page: Page) -> list[str]:
    """The group kinds, once every group carries the server's label for the groups shown."""

    def ready() -> list[str] | None:
        kinds = group_kinds(page)
        return kinds if kinds and all(kinds) else None

    return wait_until(ready, "the group labels")  # type: ignore[no-any-return]


def card_in_hand(page: Page, card: str) -> Locator:
    return page.locator(f'[data-testid="hand"] [data-testid="hand-card"][data-card="{card}"]').last


def drag(
    page: Page, source: Locator, target: Locator, *, x: float = 6, y: float | None = None
) -> None:
    """Drag ``source`` (grabbed by its visible left strip) to (x, y) inside ``target``."""
    settled(page)
    start = source.bounding_box()
    end = target.bounding_box()
    assert start is not None and end is not None
    page.mouse.move(start["x"] + 8, start["y"] + start["height"] / 2)
    page.mouse.down()
    to_x = end["x"] + x
    to_y = end["y"] + (end["height"] / 2 if y is None else y)
    page.mouse.move((start["x"] + to_x) / 2, (start["y"] + to_y) / 2, steps=3)
    page.mouse.move(to_x, to_y, steps=3)
    page.mouse.up()


def settled(page: Page) -> None:
    """Wait until no card of the hand is still sliding to its new place."""
    page.wait_for_function(
        """() => !document.getAnimations().some(a => a.effect && a.effect.target
            && a.effect.target.closest && a.effect.target.closest('[data-testid="hand"]'))"""
    )


def enabled(locator: Locator) -> bool:
    return locator.is_visible() and locator.get_attribute("aria-disabled") == "false"


def assert_hand_is_the_view(page: Page, frames: Frames) -> None:
    """The cards on screen are exactly the hand the server sent this page."""

    def same() -> bool:
        view = frames.view()
        return Counter(flat(hand_groups(page))) == Counter(view.get("hand") or [])

    wait_until(same, "the hand on screen to equal the view's hand")


def quick_seat(page: Page, room: str = ROOM) -> int:
    page.get_by_test_id(f"quick-seat-{room}").click()
    page.get_by_test_id("table").wait_for()
    page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
    return int(page.get_by_test_id("table").get_attribute("data-table") or 0)


# ---- the tests ---------------------------------------------------------------------------------


def test_a_whole_deal_in_the_browser(
    page: Page,
    sign_up: Callable[..., None],
    wallet: Callable[[Page], int],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    frames = Frames(page)
    sign_up(page, f"rani{int(time.time() * 1000) % 10**8}")
    before = wallet(page)
    table = quick_seat(page)
    you = frames.last["you"]
    assert you is not None
    assert_hand_is_the_view(page, frames)
    cut = page.get_by_test_id("cut-joker").get_attribute("data-cut")
    assert cut == frames.view()["cut"]

    # Drag the first card of the first group in front of the first card of the last group.
    labelled(page)
    groups = hand_groups(page)
    moved = groups[0][0]
    first_group = page.get_by_test_id("group").first
    last_group = page.get_by_test_id("group").last
    drag(
        page,
        first_group.get_by_test_id("hand-card").first,
        last_group.get_by_test_id("hand-card").first,
    )
    target = len(groups) - 1 if len(groups[0]) > 1 else len(groups) - 2
    expected = [list(g) for g in groups]
    expected[0].pop(0)
    expected[-1].insert(0, moved)
    expected = [g for g in expected if g]
    wait_until(lambda: hand_groups(page) == expected, "the dragged card in its new place")
    assert hand_groups(page)[target][0] == moved
    # The labels follow: they are the server's verdict on the groups now shown.
    kinds_after = wait_until(
        lambda: (kinds := labelled(page)) and len(kinds) == len(expected) and kinds,
        "labels for the new groups",
    )
    check = page_api(
        page,
        "POST",
        "/api/check",
        {"groups": expected, "joker": cut, "profile": "classic"},
    )
    assert [g["kind"] for g in check["body"]["groups"]] == kinds_after
    score = page.get_by_test_id("hand-score")
    wait_until(lambda: score.get_attribute("data-score") == str(check["body"]["score"]), "score")

    # Keyboard: select the moved card, move it one place right with the arrow key.
    card = page.get_by_test_id("group").nth(target).get_by_test_id("hand-card").first
    if len(expected[target]) > 1:
        card.focus()
        page.keyboard.press("Enter")
        page.keyboard.press("ArrowRight")
        wait_until(lambda: hand_groups(page)[target][1] == moved, "the card moved by the keyboard")
        page.keyboard.press("Escape")

    # Play the deal: draw (by click or by dragging a pile onto the hand), discard the card the
    # solver would throw (by dragging it onto the open pile or with the button), declare once
    # the hand is complete, or drop after a while.
    result = page.get_by_test_id("result")
    closed = page.get_by_test_id("pile-closed")
    turns = 0
    reloaded = False
    shot = False
    deadline = time.monotonic() + 120
    while not result.is_visible():
        assert time.monotonic() < deadline, "the deal did not end in time"
        show = page.get_by_test_id("action-show")
        if show.is_visible() and enabled(show):
            show.click()
            page.wait_for_timeout(150)
            continue
        if not enabled(closed):
            page.wait_for_timeout(60)
            continue
        turns += 1
        # The drop button shows the engine's price: a first drop before the first draw, a
        # middle drop after it (also after the reload below, which forgets the page's state).
        price = str(FIRST_DROP if turns == 1 else MIDDLE_DROP)
        drop_button = page.get_by_test_id("action-drop")
        wait_until(
            lambda p=price, b=drop_button: b.get_attribute("data-cost") == p, "the drop price"
        )
        if turns > 30 and enabled(page.get_by_test_id("action-drop")):
            page.get_by_test_id("action-drop").click()
            page.get_by_test_id("confirm-yes").click()
            break
        count = len(flat(hand_groups(page)))
        if turns % 2:
            closed.click()
        else:
            drag(page, closed, page.get_by_test_id("hand"), x=40)
        wait_until(lambda n=count: len(flat(hand_groups(page))) == n + 1, "the drawn card")
        assert_hand_is_the_view(page, frames)
        if not shot:
            labelled(page)
            screenshot(page, "indian13-playing")
            shot = True
        held = flat(hand_groups(page))
        best = arrange([parse(c) for c in held], joker=parse(cut or "JK"), profile=PROFILE)
        assert best.discard is not None
        throw = str(best.discard)
        if best.declarable:
            page.get_by_test_id("action-arrange").click()
            wait_until(lambda t=throw: hand_groups(page)[-1] == [t], "the solver's arrangement")
            drag(page, card_in_hand(page, throw), page.get_by_test_id("finish-slot"), x=20)
            wait_until(lambda: result.is_visible() or frames.view()["phase"] != "play", "declare")
            continue
        if turns % 2:
            drag(page, card_in_hand(page, throw), page.get_by_test_id("pile-open"), x=20)
        else:
            settled(page)
            card_in_hand(page, throw).click(position={"x": 8, "y": 30})
            page.get_by_test_id("action-discard").click()
        wait_until(
            lambda n=count: len(flat(hand_groups(page))) == n or result.is_visible(), "the discard"
        )
        if not reloaded and turns == 2 and not result.is_visible():
            # A reload in the middle of the deal: the table and the arrangement come back.
            arranged = hand_groups(page)
            old_sockets = frames.sockets
            page.reload()
            page.get_by_test_id("hand-card").first.wait_for()
            fresh = wait_until(
                lambda n=old_sockets: frames.after_socket(n), "messages on the new page's socket"
            )
            # The new page's socket is answered with a snapshot first, then updates.
            assert fresh[0]["type"] == "snapshot"
            assert fresh[-1]["table"] == table
            if frames.view()["deal"] == 1 and frames.view()["phase"] == "play":
                assert hand_groups(page) == arranged
            assert_hand_is_the_view(page, frames)
            reloaded = True

    result.wait_for()
    screenshot(page, "indian13-result")
    view = frames.view()
    assert view["phase"] == "over"
    rows = page.get_by_test_id("result-row")
    assert rows.count() == 2
    my_row = page.locator(f'[data-testid="result-row"][data-seat="{you}"]')
    amount = int(my_row.get_by_test_id("result-chips").get_attribute("data-amount") or 0)
    postings = view["result"]["postings"]
    assert amount == sum(p["amount"] for p in postings if p["account"] == f"seat:{you}")
    points = int(my_row.get_by_test_id("result-points").inner_text())
    assert points == view["result"]["points"][str(you)]

    # The record of the game says the same, and leaving brings the seat's chips back.
    hands = page_api(page, "GET", "/api/hands")["body"]["hands"]
    record = page_api(page, "GET", f"/api/hands/{hands[0]['id']}")["body"]["record"]
    assert hands[0]["table"] == table
    legs = record["result"]["postings"]
    assert amount == sum(p["amount"] for p in legs if p["account"] == f"seat:{you}")
    page.get_by_test_id("result-close").click()
    page.get_by_test_id("leave").click()  # between games: free, and no question asked
    page.get_by_test_id("lobby").wait_for()
    after = wallet(page)
    assert after == before + amount
    chips = page.get_by_test_id("chips")
    wait_until(lambda: chips.get_attribute("data-chips") == str(after), "the chips shown")
    assert not page.js_errors  # type: ignore[attr-defined]


def test_two_players_see_only_their_own_cards(
    new_page: Callable[..., Page],
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
) -> None:
    stamp = int(time.time() * 1000) % 10**8
    pages = [new_page(), new_page()]
    frames = [Frames(p) for p in pages]
    for number, page in enumerate(pages):
        sign_up(page, f"pair{number}x{stamp}")
    created = page_api(pages[0], "POST", "/api/tables", {"room": ROOM, "private": True})
    assert created["status"] == 201, created
    table = created["body"]["table"]["id"]
    # The second player reaches the private table through its invite.
    opened = page_api(pages[1], "GET", f"/api/invites/{created['body']['invite']}")
    assert opened["status"] == 200, opened
    for page in pages:
        sat = page_api(page, "POST", f"/api/tables/{table}/sit", {"seat": None, "buy_in": None})
        assert sat["status"] == 200, sat
    # Both open the table (a table deals once the people seated at it are there).
    for page in pages:
        page.goto(f"/#/table/{table}")
    for page in pages:
        page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
    for page, seen in zip(pages, frames, strict=True):
        assert_hand_is_the_view(page, seen)
        you = seen.last["you"]
        assert {s["name"] for s in seen.last["info"]["seats"]} == {
            f"pair0x{stamp}",
            f"pair1x{stamp}",
        }
        view = seen.view()
        # Every card face on the page is one this seat may see: its own or a public card.
        allowed = Counter(view["hand"]) + Counter(view["open"]) + Counter([view["cut"]])
        faces = Counter(
            page.evaluate(
                "() => [...document.querySelectorAll('[data-card]')].map(n => n.dataset.card)"
                ".filter(Boolean)"
            )
        )
        assert not faces - allowed, f"seat {you} sees {faces - allowed}"
        # And no message to this page carried another seat's cards.
        for message in seen.messages:
            for entry in (message["view"] or {"seats": []})["seats"]:
                if entry["seat"] != you:
                    assert entry["shown"] is None
    hands = [Counter(seen.view()["hand"]) for seen in frames]
    assert sum(hands[0].values()) == sum(hands[1].values()) == 13
    assert not any(page.js_errors for page in pages)  # type: ignore[attr-defined]


def test_keyboard_shortcuts_and_the_open_cards(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    """D discards the selected card, F asks to declare with it (a hand that is not complete asks
    first: "keep playing" keeps it); a drawn card joins the "new cards" group at the end; the
    "Open cards" dialog lists the open pile, newest first."""
    frames = Frames(page)
    sign_up(page, f"keys{int(time.time() * 1000) % 10**8}")
    closed = page.get_by_test_id("pile-closed")
    for _attempt in range(4):
        # A table of our own with a bot; if the bot drops before our first turn (which ends the
        # game), or declares a complete hand (we then show ours, which ends it), try another
        # table.
        created = page_api(page, "POST", "/api/tables", {"room": ROOM, "private": True})
        assert created["status"] == 201, created
        table = created["body"]["table"]["id"]
        sat = page_api(page, "POST", f"/api/tables/{table}/sit", {"seat": None, "buy_in": None})
        assert sat["status"] == 200, sat
        page.goto(f"/#/table/{table}")
        page.locator(f'[data-testid="table"][data-table="{table}"]').wait_for()
        page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
        result = page.get_by_test_id("result")
        show = page.get_by_test_id("show-banner")
        wait_until(
            lambda r=result, s=show: enabled(closed) or r.is_visible() or s.is_visible(),
            "our turn",
        )
        if enabled(closed):
            break
        if not result.is_visible():
            # The bot declared before our first turn (CI met a bot that drew once and had a
            # complete hand). Showing our groups ends the game, so that leaving gives the chips
            # back for the next table (a seat left mid-game keeps them until the game ends).
            page.get_by_test_id("action-show").click()
            wait_until(result.is_visible, "the result after our show")
        page_api(page, "POST", f"/api/tables/{table}/leave")
    assert enabled(closed), "no deal reached our turn"
    cut = frames.view()["cut"]

    # Draw with the keyboard (the pile is a button): the card joins the new-cards group.
    groups = hand_groups(page)
    closed.focus()
    page.keyboard.press("Enter")
    wait_until(lambda: len(flat(hand_groups(page))) == 14, "the drawn card")
    assert_hand_is_the_view(page, frames)
    drawn = (Counter(flat(hand_groups(page))) - Counter(flat(groups))).most_common(1)[0][0]
    new_groups = page.locator('[data-testid="group"][data-new="true"]')
    assert new_groups.count() == 1
    last = hand_groups(page)[-1]
    assert last[-1] == drawn
    assert page.get_by_test_id("group").last.get_attribute("data-new") == "true"
    # A lone card at the end takes the new card in; else it starts a group of its own.
    if len(groups[-1]) == 1:
        assert hand_groups(page) == [*groups[:-1], [*groups[-1], drawn]]
    else:
        assert hand_groups(page) == [*groups, [drawn]]

    # Auto-arrange lays the hand out as the hint says: labelled groups, the discard last, and a
    # line with the distance to a declaration.
    held = flat(hand_groups(page))
    advice = hint([parse(c) for c in held], joker=parse(cut), profile=PROFILE)
    page.get_by_test_id("action-arrange").click()
    hint_line = page.get_by_test_id("hint-line")
    hint_line.wait_for()
    assert hint_line.inner_text() == advice.summary
    assert hand_groups(page) == [[str(c) for c in g.cards] for g in advice.groups]
    words = page.locator('[data-testid="hand"] [data-testid="group-label"] .h13-kind')
    assert words.all_inner_texts() == [g.label for g in advice.groups]
    screenshot(page, "indian13-hint")

    # F with a card whose removal does not leave a complete hand: asked first, then kept.
    held = flat(hand_groups(page))
    best = arrange([parse(c) for c in held], joker=parse(cut), profile=PROFILE)
    assert best.discard is not None
    throw = str(best.discard)
    settled(page)
    card_in_hand(page, throw).focus()
    page.keyboard.press("Enter")
    assert card_in_hand(page, throw).get_attribute("aria-pressed") == "true"
    if not best.declarable:
        page.keyboard.press("f")
        page.get_by_test_id("confirm").wait_for()
        page.get_by_test_id("confirm-no").click()
        page.wait_for_timeout(150)
        assert frames.view()["phase"] == "play"
        assert len(flat(hand_groups(page))) == 14
        card_in_hand(page, throw).focus()
        if card_in_hand(page, throw).get_attribute("aria-pressed") != "true":
            page.keyboard.press("Enter")
    # D discards the selected card onto the open pile.
    seen = len(frames.messages)
    page.keyboard.press("d")
    pumped(
        page,
        lambda: any(m["view"]["open"][-1:] == [throw] for m in frames.messages[seen:]),
        "the discarded card on the open pile",
    )
    wait_until(lambda: len(flat(hand_groups(page))) == 13, "the card to leave the hand")

    # The open cards dialog, once the bot has played (nothing moves on our turn): the open pile,
    # newest first. The bot's move may also end the deal, or declare (taking our discard to
    # complete its hand), and then the show waits for our groups.
    wait_until(
        lambda: (
            enabled(closed)
            or page.get_by_test_id("result").is_visible()
            or page.get_by_test_id("show-banner").is_visible()
        ),
        "the bot's move",
    )
    assert_hand_is_the_view(page, frames)
    pile = frames.view()["open"]
    page.get_by_test_id("action-open-cards").click()
    dialog = page.get_by_test_id("open-cards-dialog")
    dialog.wait_for()
    items = dialog.get_by_test_id("open-card")
    assert [items.nth(i).get_attribute("data-card") for i in range(items.count())] == list(
        reversed(pile)
    )
    screenshot(page, "indian13-open-cards")
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    assert not page.js_errors  # type: ignore[attr-defined]


def test_six_seats_on_a_phone(
    page: Page, play_as_guest: Callable[[Page], None], screenshot: Callable[..., Any]
) -> None:
    """On a 390 px phone the piles, the finish slot and the turn line fit between the seats at
    the felt's sides."""
    page.set_viewport_size({"width": 390, "height": 844})
    play_as_guest(page)
    page.get_by_test_id("quick-seat-practice-indian13-classic-points-1-6p").click()
    page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
    wait_until(
        lambda: page.locator('[data-testid^="seat-"][data-empty="false"]').count() == 6,
        "six players",
    )
    page.get_by_test_id("cut-joker").locator(".card").wait_for()
    settled(page)
    boxes = page.evaluate(
        """() => {
            const box = (node) => { const r = node.getBoundingClientRect();
                return [r.left, r.top, r.right, r.bottom]; };
            const seats = [...document.querySelectorAll('.seat[data-place]')]
                .filter((node) => node.dataset.place !== 'bottom').map(box);
            const centre = ['.h13-piles', '.h13-turn', '.h13-cut-text', '.h13-open-cards']
                .map((s) => document.querySelector(s)).filter((n) => n && n.offsetWidth).map(box);
            return {seats, centre};
        }"""
    )
    assert len(boxes["seats"]) == 5
    for part in boxes["centre"]:
        for seat in boxes["seats"]:
            apart = (
                part[2] <= seat[0] or seat[2] <= part[0] or part[3] <= seat[1] or seat[3] <= part[1]
            )
            assert apart, f"the centre {part} overlaps a seat {seat}"
    screenshot(page, "indian13-six-seats")
    assert not page.js_errors  # type: ignore[attr-defined]
