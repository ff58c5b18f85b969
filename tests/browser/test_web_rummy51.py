"""Rummy 51 in a real browser (js/games/rummy51.js, js/games/rummy51/).

1. A guest plays a whole game against the bot at a two-seat practice table, moving through the
   page only (the stock, the discard pile, the tray's Hint and Open, Make group and Lay down, the
   groups' "+", the jokers on the table, Discard and Bury); which move to make comes from the
   game's own bot reading the page's view. The result lists both seats with their places.
2. Two people at one private table: each page shows its own hand only, and once someone has
   opened both pages show the same groups on the table.
3. Laying off by dragging and swapping a joker, deterministically: the page is the real table
   shell and view, served on the real server's origin, but its socket is a stand-in that hands
   each action to a Rummy 51 engine in this process, dealt from a stacked deck, whose other seat
   is scripted here. The notation the page sends is what the engine judges: a joker dropped on a
   run's left half goes low, a natural card dropped on a joker swaps it, a picked card goes on a
   set with the "+", a discard taken without opening is put back, a joker is buried.

Screenshots (desktop and phone): rummy51-playing, rummy51-tray, rummy51-result, rummy51-two,
rummy51-table under $RUMMYHALL_SCREENSHOTS (or build/screenshots/).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from conftest import PHONE, layout_problems, settled
from conftest import wait_until as wait_for_state
from rummyhall.cards import parse, shoe
from rummyhall.games.protocol import HOUSE, Deal, GameError
from rummyhall.games.rummy51.bot import Rummy51Bot
from rummyhall.games.rummy51.engine import Rummy51
from rummyhall.games.rummy51.rules import Rummy51Config

# This file waits 15 s for a state of the page (the shared helper's default is 20).
wait_until = partial(wait_for_state, timeout=15)

ROOM = "practice-rummy51-10-2p"  # guests play the practice rooms
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # Quick bots, but only after 2 s (time for two people to sit at one private table first),
    # and a long pause after a game so that its result stays on the table.
    return ["--bot-wait", "2", "--bot-think-ms", "30", "--deal-ms", "0", "--next-game-ms", "60000"]


# ---- reading the page ------------------------------------------------------------------------


def message(page: Page) -> JSON:
    """The last table message the page received (the shell keeps it for tests)."""
    last: JSON | None = page.evaluate("window.rummyhall && window.rummyhall.lastTableMessage")
    return last or {}


def hand(page: Page) -> list[str]:
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll('[data-testid="hand"] [data-testid="hand-card"]')]
            .map(c => c.dataset.card)"""
    )


def tray_cards(page: Page) -> list[str]:
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll('[data-testid="tray-group"] [data-card]')]
            .map(c => c.dataset.card)"""
    )


def table_groups(page: Page) -> list[JSON]:
    """The groups on the table as the page shows them."""
    return page.evaluate(  # type: ignore[no-any-return]
        """() => [...document.querySelectorAll('[data-testid="table-group"]')].map(g => ({
            id: Number(g.dataset.id), owner: Number(g.dataset.owner), kind: g.dataset.kind,
            cards: [...g.querySelectorAll('[data-testid="table-card"]')].map(c => c.dataset.card),
            stands: [...g.querySelectorAll('[data-testid="table-card"]')]
                .map(c => c.dataset.stands || null)}))"""
    )


def in_hand(page: Page, card: str, *, picked: bool | None = False) -> Locator:
    """A card of the hand (one not picked yet, unless said otherwise)."""
    state = "" if picked is None else f'[aria-pressed="{str(picked).lower()}"]'
    return page.locator(
        f'[data-testid="hand"] [data-testid="hand-card"][data-card="{card}"]{state}'
    ).first


def pick(page: Page, *cards: str) -> None:
    """Pick cards of the hand by clicking their visible strip."""
    settled(page)
    for card in cards:
        in_hand(page, card).click(position={"x": 6, "y": 20})
        expect(in_hand(page, card, picked=True)).to_be_attached()


def drag(page: Page, source: Locator, target: Locator, *, x: float | None = None) -> None:
    """Drag ``source`` (held by its visible left strip) onto ``target`` at ``x`` px from its left
    edge (its middle if None), with the mouse."""
    settled(page)
    start = source.bounding_box()
    end = target.bounding_box()
    assert start is not None and end is not None
    page.mouse.move(start["x"] + 8, start["y"] + start["height"] / 2)
    page.mouse.down()
    to_x = end["x"] + (end["width"] / 2 if x is None else x)
    to_y = end["y"] + end["height"] / 2
    page.mouse.move((start["x"] + to_x) / 2, (start["y"] + to_y) / 2, steps=4)
    page.mouse.move(to_x, to_y, steps=4)
    page.mouse.up()


def enabled(locator: Locator) -> bool:
    return locator.is_visible() and locator.get_attribute("aria-disabled") == "false"


def seq(page: Page) -> int:
    return int(message(page).get("seq") or 0)


def js_errors(page: Page) -> list[str]:
    return page.js_errors  # type: ignore[attr-defined,no-any-return]


# ---- playing through the page, as the bot would ----------------------------------------------


class Player:
    """Plays one page's seat through its controls; the move is the one the game's bot picks from
    the view the page received. Counts what it did, by kind."""

    def __init__(
        self, page: Page, seed: int = 7, screenshot: Callable[..., Any] | None = None
    ) -> None:
        self.page = page
        self.bot = Rummy51Bot(seed=seed)
        self.done: Counter[str] = Counter()
        self.hinted: list[JSON] = []
        self.screenshot = screenshot

    def my_turn(self) -> JSON | None:
        last = message(self.page)
        view = last.get("view")
        if not view or view.get("phase") != "play" or view.get("turn") != last.get("you"):
            return None
        if not last.get("legal"):
            return None
        return last

    def move(self) -> bool:
        """Make one move if it is this seat's turn; True if one was made."""
        last = self.my_turn()
        if last is None:
            return False
        action = self.bot.act(last["view"])
        if action is None:
            return False
        before = int(last["seq"])
        try:
            self.play(action, last)
        except Exception as error:
            raise AssertionError(
                f"{action}: hand {hand(self.page)}, tray {tray_cards(self.page)}, "
                f"view hand {last['view']['hand']}, table {last['view']['table']}"
            ) from error
        wait_until(self.page, lambda: seq(self.page) > before, f"the answer to {action}")
        return True

    def play(self, action: str, last: JSON) -> None:
        page = self.page
        verb, _, rest = action.partition(" ")
        if verb == "draw":
            page.get_by_test_id("pile-closed" if rest == "closed" else "pile-open").click()
        elif verb == "return":
            page.get_by_test_id("action-return").click()
        elif verb == "open":
            # The tray's Hint holds the solver's best opening; the Open button sends it.
            page.get_by_test_id("action-hint").click()
            hint = last["view"]["opening_hint"]
            total = page.get_by_test_id("tray-total")
            expect(total).to_have_attribute("data-total", str(hint["value"]))
            assert Counter(tray_cards(page)) == Counter(c for g in hint["groups"] for c in g)
            self.hinted.append(hint)
            if self.done["open"] == 0:
                self.shoot("rummy51-tray")
            page.get_by_test_id("action-open").click()
        elif verb == "meld":
            for group in rest.split("|"):
                pick(page, *group.split())
                page.get_by_test_id("action-make-group").click()
            page.get_by_test_id("action-meld").click()
        elif verb == "add":
            parts = rest.split()
            group, card = parts[0], parts[1]
            pick(page, card)
            buttons = page.locator(f'[data-testid^="add-{group}"]')
            if len(parts) == 3 and buttons.count() == 2:
                buttons = page.get_by_test_id(f"add-{group}-{parts[2]}")
            buttons.first.click()
        elif verb == "swap":
            group, card = rest.split()
            pick(page, card)
            joker = page.locator(
                f'[data-testid="table-group"][data-id="{group}"] '
                '[data-testid="table-card"][data-card="JK"]:not([disabled])'
            ).first
            joker.click(position={"x": 5, "y": 12})
        elif verb == "discard":
            cards = rest.split()
            pick(page, *cards)
            bury = len(cards) == 2 and cards.count("JK") == 1
            page.get_by_test_id("action-bury" if bury else "action-discard").click()
        else:
            raise AssertionError(f"no control for {action}")
        self.done[verb] += 1

    def shoot(self, name: str) -> None:
        if self.screenshot is not None:
            self.screenshot(self.page, name)


# ---- 1. a whole game against the bot ---------------------------------------------------------


def test_a_game_against_the_bot(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    lobby_room = page.get_by_test_id(f"room-{ROOM}")
    expect(lobby_room.locator("h3")).to_contain_text("10 chips a game")
    page.get_by_test_id(f"quick-seat-{ROOM}").click()
    page.get_by_test_id("table").wait_for()
    page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
    player = Player(page, screenshot=screenshot)
    you = message(page)["you"]

    result = page.get_by_test_id("result")
    shot = False
    deadline = time.monotonic() + 240
    while not result.is_visible():
        assert time.monotonic() < deadline, f"the game did not end in time ({player.done})"
        last = player.my_turn()
        if last is None:
            page.wait_for_timeout(50)
            continue
        view = last["view"]
        # What the page shows is what the server sent this seat.
        assert Counter(hand(page)) + Counter(tray_cards(page)) == Counter(view["hand"])
        if not shot and not view["first_round"] and view["drawn"]:
            screenshot(page, "rummy51-playing")
            shot = True
        player.move()

    assert player.done["draw"] and player.done["discard"], player.done
    last = wait_until(page, lambda: (m := message(page))["view"]["phase"] == "over" and m, "over")
    view = last["view"]
    if player.done["open"]:
        assert player.hinted and all(h["value"] >= view["opening"] for h in player.hinted)
    places = view["result"]["detail"]["places"]
    rows = page.get_by_test_id("result-row")
    expect(rows).to_have_count(2)
    for seat, place in places.items():
        row = page.locator(f'[data-testid="result-row"][data-seat="{seat}"]')
        expect(row).to_have_attribute("data-place", str(place["place"]))
        expect(row.get_by_test_id("result-place")).to_have_text(("1st", "2nd")[place["place"] - 1])
        expect(row.get_by_test_id("result-score")).to_have_text(str(place["score"]))
        expect(row.get_by_test_id("result-left")).to_have_attribute(
            "data-count", str(place["cards_left"])
        )
    assert [r.get_attribute("data-place") for r in rows.all()] == ["1", "2"]
    winner = view["result"]["winners"][0] if view["result"]["winners"] else None
    headline = page.get_by_test_id("result-headline")
    expect(headline).to_contain_text("You went out" if winner == you else "went out")
    if view["result"]["detail"]["rummy"]:
        expect(page.get_by_test_id("result-rummy")).to_have_text("Rummy!")
    screenshot(page, "rummy51-result")
    page.get_by_test_id("result-close").click()
    expect(result).to_have_count(0)
    expect(page.get_by_test_id("action-last-result")).to_be_visible()

    # The history: the outcome in places, the replay with the groups on the table, and Verify
    # checks the cards dealt to this seat against the deck the seeds give (dealtCards).
    page.get_by_test_id("nav-history").click()
    hand_id = page_api(page, "GET", "/api/hands")["body"]["hands"][0]["id"]
    mine = places[str(you)]
    expect(page.get_by_test_id(f"history-game-{hand_id}")).to_have_text("Rummy 51")
    expect(page.get_by_test_id(f"history-result-{hand_id}")).to_contain_text(
        f"{('1st', '2nd')[mine['place'] - 1]} of 2 · score {mine['score']}"
    )
    page.get_by_test_id(f"history-open-{hand_id}").click()
    expect(page.get_by_test_id("replay")).to_be_visible()
    page.get_by_test_id("replay").press("End")
    expect(page.get_by_test_id("replay-result")).to_contain_text("went out")
    page.get_by_test_id("fair-verify").click()
    verdict = page.get_by_test_id("fair-result")
    expect(verdict).to_have_attribute("data-ok", "true")
    expect(verdict).to_contain_text("deals exactly the cards you received")
    screenshot(page, "rummy51-replay")
    assert js_errors(page) == []


# ---- 2. two people at one table ----------------------------------------------------------------


def test_two_people_see_their_own_cards_and_each_others_groups(
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    pages = [new_page(), new_page(PHONE)]  # the second person plays on a phone
    for page in pages:
        play_as_guest(page)
    created = page_api(pages[0], "POST", "/api/tables", {"room": ROOM, "private": True})
    assert created["status"] == 201, created
    table = created["body"]["table"]["id"]
    opened = page_api(pages[1], "GET", f"/api/invites/{created['body']['invite']}")
    assert opened["status"] == 200, opened
    for page in pages:
        sat = page_api(page, "POST", f"/api/tables/{table}/sit", {"seat": None, "buy_in": None})
        assert sat["status"] == 200, sat
        page.goto(f"/#/table/{table}")
    for page in pages:
        page.get_by_test_id("hand-card").first.wait_for(timeout=20_000)
    players = [Player(page, seed=11 + n) for n, page in enumerate(pages)]

    def check_private() -> None:
        for page in pages:
            last = message(page)
            view, you = last["view"], last["you"]
            assert Counter(hand(page)) + Counter(tray_cards(page)) == Counter(view["hand"])
            assert all("hand" not in seat for seat in view["seats"])
            # Every card face on the page is one this seat may see: its own, the discard pile's
            # top two, the table's.
            allowed = Counter(view["hand"]) + Counter(view["open"][-2:])
            allowed += Counter(c for g in view["table"] for c in g["cards"])
            faces = Counter(
                page.evaluate(
                    "() => [...document.querySelectorAll('[data-card]')].map(n => n.dataset.card)"
                )
            )
            assert not faces - allowed, f"seat {you} sees {faces - allowed}"

    check_private()
    phone, checked = pages[1], False
    deadline = time.monotonic() + 180
    while not (message(pages[0])["view"]["table"] and message(pages[1])["view"]["table"]):
        assert time.monotonic() < deadline, "nobody opened in time"
        if not checked and len(hand(phone)) == 15:
            # 15 cards on a 390 px phone: every one in view and touchable (once settled).
            settled(phone)
            assert layout_problems(phone) == []
            checked = True
        if not any(player.move() for player in players):
            pages[0].wait_for_timeout(50)
    assert checked
    # Someone opened: both pages show the same groups, with their owner.
    wait_until(pages[0], lambda: table_groups(pages[0]) == table_groups(pages[1]), "same groups")
    groups = table_groups(pages[0])
    view = message(pages[0])["view"]
    assert [(g["id"], g["owner"], g["cards"]) for g in groups] == [
        (g["id"], g["owner"], g["cards"]) for g in view["table"]
    ]
    owner = groups[0]["owner"]
    for page in pages:
        expect(page.get_by_test_id(f"opened-{owner}")).to_be_visible()
        named = page.locator(f'[data-testid="table-owner"][data-owner="{owner}"]')
        expect(named).to_be_visible()
    other = pages[1] if message(pages[0])["you"] == owner else pages[0]
    expect(other.locator(f'[data-testid="table-owner"][data-owner="{owner}"]')).not_to_contain_text(
        "Your groups"
    )
    check_private()
    screenshot(other, "rummy51-two")
    assert not any(js_errors(page) for page in pages)


# ---- 3. lay-offs and a joker swap against a stacked deck ----------------------------------------

HARNESS = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/css/base.css"><link rel="stylesheet" href="/css/cards.css">
<meta name="game-styles" content="here"></head>
<body data-route="table"><header id="topbar" class="topbar"></header>
<main id="app"></main><div id="toasts" class="toasts" role="status" aria-live="polite"></div>
<script type="module">
import { renderTable } from '/js/table.js';
import { loadGameStyles } from '/js/games/registry.js';

// The table's socket, played by the test: every action goes to the engine in the test.
class Socket extends EventTarget {
  constructor() { super(); this.online = true; this.listener = null; }
  watch(table, onMessage) { this.listener = onMessage; }
  unwatch() { this.listener = null; }
  async act(table, action) {
    window.sent.push(action);
    const answer = await window.engineAct(action);
    if (answer.error) throw answer.error;
    this.listener(answer.message);
    return answer.message;
  }
}
const socket = new Socket();
window.sent = [];
window.rummyhall = { lastTableMessage: null };
window.harness = { push: (message) => socket.listener(message) };
await loadGameStyles();
renderTable(document.getElementById('app'), {
  tableId: 1, socket, navigate() {}, refreshMe() {},
  onTableMessage(message) { window.rummyhall.lastTableMessage = message; },
});
window.harness.ready = true;
</script></body></html>"""

# Seat 1 (the page) moves first with 15 cards; seat 2 is scripted. After the first round seat 1
# opens with KH KD KS | 9C 10C JC (59), seat 2 with 5S JK 7S 8S | QH QC QD (56); then seat 1
# swaps its 6S for that joker, lays 4S and the joker (low: the 3S) off on the spades and QS on
# the queens, and buries its own joker under the 2H.
SEAT1 = ["KH", "KD", "KS", "9C", "10C", "JC", "6S", "4S", "QS", "JK", "2H", "8H", "5D", "7D", "3C"]
SEAT2 = ["5S", "JK", "7S", "8S", "QH", "QC", "QD", "3D", "9H", "4C", "6D", "10H", "AC", "2C"]
STOCK = ["9D", "2D", "5H", "9S", "4D"]  # drawn in turn: seat 2, seat 1, seat 2, seat 1, seat 2


def stacked_deck() -> list[str]:
    dealt = [SEAT1[i // 2] if i % 2 == 0 else SEAT2[i // 2] for i in range(28)] + [SEAT1[14]]
    rest = Counter(str(card) for card in shoe(2, 2)) - Counter(dealt) - Counter(STOCK)
    deck = dealt + STOCK + sorted(rest.elements())
    assert Counter(deck) == Counter(str(card) for card in shoe(2, 2))
    return deck


class Table:
    """A Rummy 51 game in this process, as the server would run it for the page's seat 1."""

    def __init__(self) -> None:
        self.game = Rummy51(Rummy51Config(seats=2, stake=10, first=1, turn_ms=3_600_000))
        self.seq = 0
        self.events: list[JSON] = []
        deck = tuple(parse(card) for card in stacked_deck())
        self.apply(HOUSE, "deal", deal=Deal(deck))
        self.script: list[str] = []

    def now(self) -> int:
        return max(int(time.time() * 1000), self.game.clock)

    def apply(self, seat: int, action: str, deal: Deal | None = None) -> None:
        for event in self.game.apply(seat, action, self.now(), deal=deal):
            if event.visible_to(1):
                self.events.append({"kind": event.kind, "data": json.loads(json.dumps(event.data))})

    def message(self) -> JSON:
        self.seq += 1
        info = {
            "id": 1, "room": ROOM, "game": "rummy51", "title": "Rummy 51",
            "stake": "10 chips a game", "currency": "practice", "private": True,
            "seats": [
                {"seat": 1, "name": "you", "bot": False, "stack": 100, "leaving": False,
                 "away": False, "auto_rebuy": False},
                {"seat": 2, "name": "Scripted", "bot": True, "stack": 100, "leaving": False,
                 "away": False, "auto_rebuy": False},
            ],
            "pot": 0, "game_no": 1, "playing": True, "fair": None,
        }  # fmt: skip
        events, self.events = self.events, []
        return {
            "type": "update", "table": 1, "seq": self.seq, "step": len(self.game.log), "you": 1,
            "now": self.now(), "info": info, "events": events, "view": self.game.view(1),
            "legal": self.game.legal(1),
        }  # fmt: skip

    def act(self, action: str) -> JSON:
        """The page's action: applied, then seat 2's scripted turn if it is its turn."""
        try:
            self.apply(1, action)
        except GameError as error:
            return {"error": {"code": error.code, "message": error.message}}
        while self.game.turn == 2 and self.script:
            turn = self.script.pop(0)
            for step in turn.split(";"):
                self.apply(2, step.strip())
        return {"message": self.message()}


def test_lay_off_and_swap_by_drag_against_a_stacked_deck(
    page: Page, server: Any, screenshot: Callable[..., Any]
) -> None:
    table = Table()
    table.script = [
        "draw closed; discard 9D",
        "draw closed; open 5S JK 7S 8S | QH QC QD; discard 5H",
        "draw closed; discard 4D",
    ]
    page.expose_function("engineAct", table.act)
    page.route(
        "**/r51-harness.html",
        lambda route: route.fulfill(status=200, content_type="text/html", body=HARNESS),
    )
    page.goto("/r51-harness.html")
    page.wait_for_function("window.harness && window.harness.ready")
    page.evaluate("(m) => window.harness.push(m)", table.message())
    page.get_by_test_id("hand-card").first.wait_for()

    def sent() -> list[str]:
        return page.evaluate("window.sent")  # type: ignore[no-any-return]

    # Turn 0: no draw; nobody lays down in the first round (no tray); drag 7D onto the pile.
    expect(page.get_by_test_id("turn-info")).to_contain_text("You start")
    expect(page.get_by_test_id("opening-tray")).to_be_hidden()
    drag(page, in_hand(page, "7D"), page.get_by_test_id("pile-open"))
    expect(page.get_by_test_id("pile-open")).to_have_attribute("data-top", "9D")
    assert sent() == ["discard 7D"]

    # Turn 2: take the 9D without having opened, then put it back and draw from the stock.
    page.get_by_test_id("pile-open").click()
    expect(page.get_by_test_id("must-open")).to_be_visible()
    expect(page.get_by_test_id("action-discard")).to_have_attribute("aria-disabled", "true")
    page.get_by_test_id("action-return").click()
    expect(page.get_by_test_id("must-open")).to_be_hidden()
    page.get_by_test_id("pile-closed").click()
    expect(in_hand(page, "2D")).to_be_attached()
    assert sent()[1:] == ["draw open", "return", "draw closed"]

    # The tray: two groups picked by hand, their values against 51, and Open.
    tray = page.get_by_test_id("opening-tray")
    expect(tray).to_be_visible()
    expect(page.get_by_test_id("action-hint")).to_be_visible()
    pick(page, "KH", "KD", "KS")
    page.get_by_test_id("action-make-group").click()
    expect(page.get_by_test_id("tray-total")).to_have_attribute("data-total", "30")
    expect(page.get_by_test_id("action-open")).to_have_attribute("aria-disabled", "true")
    pick(page, "9C", "10C", "JC")
    page.get_by_test_id("action-make-group").click()
    expect(page.get_by_test_id("tray-total")).to_have_attribute("data-total", "59")
    expect(page.get_by_test_id("tray-group")).to_have_count(2)
    page.get_by_test_id("action-open").click()
    expect(page.get_by_test_id("table-group")).to_have_count(2)
    expect(page.get_by_test_id("opened-1")).to_be_visible()
    pick(page, "2D")
    page.get_by_test_id("action-discard").click()
    # Seat 2 opens with a joker in its run: it stands for the 6S.
    expect(page.get_by_test_id("table-group")).to_have_count(4)
    run = page.locator('[data-testid="table-group"][data-id="3"]')
    joker = run.locator('[data-testid="table-card"][data-card="JK"]')
    expect(joker).to_have_attribute("data-stands", "6S")
    expect(joker.get_by_test_id("table-stands")).to_have_text("=6♠")
    expect(page.get_by_test_id("last-move")).to_contain_text("opened with 56")
    assert sent()[4:] == ["open KS KH KD | 9C 10C JC", "discard 2D"]

    # Turn 4: draw; drop the 6S on the joker: a swap, and the joker comes to the hand.
    page.get_by_test_id("pile-closed").click()
    expect(in_hand(page, "9S")).to_be_attached()
    drag(page, in_hand(page, "6S"), joker, x=5)
    expect(run).to_have_attribute("data-kind", "run")
    wait_until(page, lambda: table_groups(page)[2]["cards"] == ["5S", "6S", "7S", "8S"], "swap")
    assert hand(page).count("JK") == 2
    # The 4S dropped on the run; then a joker on its left half: it goes low, as the 3S.
    drag(page, in_hand(page, "4S"), run)
    wait_until(page, lambda: table_groups(page)[2]["cards"][0] == "4S", "the 4S laid off")
    drag(page, in_hand(page, "JK"), run, x=12)
    wait_until(page, lambda: table_groups(page)[2]["cards"][0] == "JK", "the joker laid off")
    expect(joker.first).to_have_attribute("data-stands", "3S")
    expect(run.get_by_test_id("table-stands")).to_have_text("=3♠")
    # The QS goes on the queens by its "+" (a set of three takes a fourth suit), by keyboard:
    # Enter picks the card, Enter on the group's "+" lays it off.
    settled(page)
    in_hand(page, "QS").focus()
    page.keyboard.press("Enter")
    expect(in_hand(page, "QS", picked=True)).to_be_attached()
    queens = page.locator('[data-testid="table-group"][data-id="4"]')
    expect(queens).to_have_attribute("data-fits", "true")
    page.get_by_test_id("add-4").focus()
    page.keyboard.press("Enter")
    wait_until(page, lambda: len(table_groups(page)[3]["cards"]) == 4, "the QS laid off")
    assert sent()[6:] == ["draw closed", "swap 3 6S", "add 3 4S", "add 3 JK low", "add 4 QS"]
    screenshot(page, "rummy51-table")
    # Bury the other joker under the 2H: the pile shows the 2H, the joker lies under it.
    pick(page, "JK", "2H")
    expect(page.get_by_test_id("action-bury")).to_be_visible()
    page.get_by_test_id("action-bury").click()
    wait_until(page, lambda: message(page)["view"]["turn"] == 1, "seat 2's turn to pass")
    assert sent()[-1] == "discard 2H JK"
    assert "JK" not in hand(page)
    view = message(page)["view"]
    assert view["open"][-3:] == ["JK", "2H", "4D"]
    assert Counter(hand(page)) == Counter(view["hand"])
    assert js_errors(page) == []
