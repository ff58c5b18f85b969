"""Rummy Patti in the browser: a player at a private table plays chaal, chaal 2X, an exchange, a
sideshow as the asker and as the asked player (accept and refuse), show and pack; the showdown
shows the hand names; the chips shown equal the wallet afterwards.

The other seats are scripted Python players (rummyhall.client.RoomClient in a background event
loop) so that every situation comes when the test wants it; bots never sit down (long bot wait).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from rummyhall.client import ClientError, RoomClient

ROOM = "practice-patti-10-4p"  # guests play practice rooms
HAND_NAMES = {"high card", "pair", "colour", "sequence", "pure sequence", "trail"}
JSON = dict[str, Any]
Policy = Callable[[JSON], "str | None"]


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # No bots (they would wait an hour), and a pause between games long enough to read a result.
    return ["--bot-wait", "3600", "--bot-think-ms", "0", "--next-game-ms", "5000"]


# ---- scripted players ------------------------------------------------------------------------


def active(view: JSON) -> list[int]:
    return [s for s in view["order"] if view["seats"][s - 1]["status"] == "playing"]


def before(view: JSON, seat: int) -> int:
    """The nearest seat still in before ``seat`` in turn order."""
    order = view["order"]
    at = order.index(seat)
    for k in range(1, len(order) + 1):
        candidate = order[(at - k) % len(order)]
        if view["seats"][candidate - 1]["status"] == "playing":
            return int(candidate)
    raise AssertionError("nobody is in")


class Scripted:
    """Players driven by policies in their own event loop (the sync Playwright API owns this
    thread). A policy sees each latest table message where the seat is awaited and returns an
    action or None."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.clients: list[RoomClient] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.invites: dict[int, str] = {}
        """The invite of each private table made here (others reach it only through it)."""
        self.stop = False

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _player(self, table: int | None, room: str) -> tuple[RoomClient, int, str | None]:
        client = RoomClient(self.url)
        self.clients.append(client)
        await client.guest()
        invite = None
        if table is None:
            created = await client.request("POST", "/api/tables", {"room": room, "private": True})
            table, invite = int(created["table"]["id"]), created["invite"]
            self.invites[table] = str(invite)
        else:
            await client.request("GET", f"/api/invites/{self.invites[table]}")
        await client.connect()
        return client, table, invite

    def join(
        self, table: int | None, seat: int, policy: Policy, room: str = ROOM
    ) -> tuple[int, str | None]:
        """A new guest at ``table`` (None: a new private table of ``room``) in ``seat``, playing
        ``policy``."""

        async def go() -> tuple[int, str | None]:
            client, table_id, invite = await self._player(table, room)
            client.follow(table_id)
            await client.request("POST", f"/api/tables/{table_id}/sit", {"seat": seat})
            await client.watch(table_id)
            self.tasks.append(asyncio.create_task(self._drive(client, table_id, policy)))
            return table_id, invite

        result: tuple[int, str | None] = self.call(go())
        return result

    async def _drive(self, client: RoomClient, table: int, policy: Policy) -> None:
        feed = client.follow(table)
        done: tuple[int, str] | None = None
        while not self.stop:
            message: JSON | None
            try:
                async with asyncio.timeout(0.25):
                    message = await feed.get()
            except TimeoutError:
                message = client.tables.get(table)  # look again (after a refused action)
            if message is None or not feed.empty():
                continue
            view, you = message.get("view"), message.get("you")
            if view is None or you is None:
                continue
            if not any(a["seat"] == you for a in view.get("awaited", [])):
                continue
            action = policy(message)
            if action is None or done == (message["seq"], action):
                continue
            try:
                await client.act(table, action)
                done = (message["seq"], action)
            except ClientError:
                await asyncio.sleep(0.1)

    def close(self) -> None:
        async def shut() -> None:
            self.stop = True
            for task in self.tasks:
                task.cancel()
            for task in self.tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            for client in self.clients:
                with contextlib.suppress(Exception):
                    await client.close()

        self.call(shut())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def scripted(server: Any) -> Any:
    players = Scripted(server.url)
    try:
        yield players
    finally:
        players.close()


def seat_table(page: Page, scripted: Scripted, page_api: Any, plan: JSON) -> tuple[int, int]:
    """A private table of four (a game starts once every seat is taken): three scripted players
    in seats 2, 3, 4 and the page's player in seat 1, who plays first in the first game; turns
    go round the seats 1, 2, 3, 4. ``plan`` steers the scripted players: ``answer`` (accept or
    refuse a sideshow), ``pack`` (seats that pack on their next turn), ``ask`` (the seat that
    asks the page's player for a sideshow when it can)."""
    you = 1

    def policy(message: JSON) -> str | None:
        view, legal, me = message["view"], message["legal"], message["you"]
        if view["phase"] == "sideshow":
            return "accept" if plan.get("answer", "accept") == "accept" else "refuse"
        if me in plan.get("pack", ()) or view["seats"][you - 1]["status"] != "playing":
            return "pack"  # as planned, or the page's player packed: end the game
        ask = plan.get("ask") == me and "sideshow" in legal and before(view, me) == you
        if ask:
            plan["ask"] = None
            return "sideshow"
        return "chaal"

    table, invite = scripted.join(None, 2, policy)
    scripted.join(table, 3, policy)
    scripted.join(table, 4, policy)
    assert page_api(page, "GET", f"/api/invites/{invite}")["status"] == 200
    answer = page_api(page, "POST", f"/api/tables/{table}/sit", {"seat": you, "buy_in": None})
    assert answer["status"] == 200, answer
    page.goto(f"/#/table/{table}")
    page.get_by_test_id("patti-centre").wait_for()
    return table, you


def my_turn(page: Page, timeout: float = 20_000) -> None:
    expect(page.get_by_test_id("action-chaal")).to_be_enabled(timeout=timeout)


def hand_cards(page: Page) -> list[str]:
    return [
        str(card.get_attribute("data-card"))
        for card in page.get_by_test_id("hand").locator("[data-card]").all()
    ]


def table_message(page: Page, table: int) -> JSON:
    """What the server says now: the page's own fetch of the table (seats, stacks)."""
    answer = page.evaluate("async (id) => (await fetch(`/api/tables/${id}`)).json()", table)
    return dict(answer["table"])


def leave_and_check_chips(page: Page, wallet: Any) -> None:
    page.get_by_test_id("leave").click()  # between games: free, and no question asked
    page.get_by_test_id("lobby").wait_for()
    chips = wallet(page, "practice")  # a guest's chips are practice chips
    pill = page.get_by_test_id("practice-chips")
    expect(pill).to_have_attribute("data-chips", str(chips))
    expect(pill).to_contain_text(f"{chips:,} practice chips")


# ---- tests ---------------------------------------------------------------------------------


def test_chaal_exchange_sideshow_asker_and_show(
    page: Page, scripted: Scripted, play_as_guest: Any, page_api: Any, wallet: Any, screenshot: Any
) -> None:
    play_as_guest(page)
    start = wallet(page, "practice")
    plan: JSON = {"answer": "accept"}
    table, you = seat_table(page, scripted, page_api, plan)
    mine = page.get_by_test_id(f"patti-seat-{you}")

    # chaal: the button names its price, and the move shows at the seat
    my_turn(page)
    assert re.fullmatch(r"Chaal \d+", page.get_by_test_id("action-chaal").inner_text())
    assert hand_cards(page) and len(hand_cards(page)) == 3
    page.get_by_test_id("hand-card").first.click()  # pick a card: the exchange targets light up
    expect(page.get_by_test_id("action-exchange-open")).to_be_enabled()
    screenshot(page, "patti-playing")
    page.get_by_test_id("hand-card").first.click()  # and drop the pick again
    expect(page.get_by_test_id("action-exchange-open")).to_be_disabled()
    expect(page.get_by_test_id("action-show")).to_be_disabled()  # three players are in
    page.get_by_test_id("action-chaal").click()
    expect(mine).to_contain_text("chaal")

    # chaal 2X
    my_turn(page)
    double = page.get_by_test_id("action-chaal-2x")
    price = int(re.sub(r"\D", "", double.inner_text().split("2X")[1]))
    pot_before = int(re.sub(r"\D", "", page.get_by_test_id("patti-pot").inner_text()))
    double.click()
    expect(mine).to_contain_text(f"chaal 2X {price}")
    pot_after = int(re.sub(r"\D", "", page.get_by_test_id("patti-pot").inner_text()))
    assert pot_after >= pot_before + price

    # exchange with the open card: my card goes to the centre, the open card comes to my hand
    my_turn(page)
    given = hand_cards(page)[0]
    opened = page.get_by_test_id("pile-open").locator("[data-card]").get_attribute("data-card")
    page.get_by_test_id("hand").locator(f"[data-card='{given}']").click()
    page.get_by_test_id("action-exchange-open").click()
    expect(page.get_by_test_id("pile-open").locator(f"[data-card='{given}']")).to_be_visible()
    expect(page.get_by_test_id("hand").locator(f"[data-card='{opened}']")).to_be_visible()
    assert given not in hand_cards(page)

    # sideshow as the asker: the previous player (seat 4) accepts, and the two hands are shown
    # to the two of us; then seats 2 and 3 pack on their turns
    my_turn(page)
    expect(page.get_by_test_id("action-sideshow")).to_be_enabled()
    plan["pack"] = {2, 3}
    page.get_by_test_id("action-sideshow").click()
    seen = page.get_by_test_id("sideshow-seen")
    expect(seen).to_be_visible()
    expect(seen.get_by_test_id("sideshow-their-cards").locator("[data-card]")).to_have_count(3)

    # two are left: show turns both hands over
    my_turn(page)
    expect(page.get_by_test_id("action-show")).to_be_enabled()
    expect(page.get_by_test_id("action-sideshow")).to_be_disabled()
    page.get_by_test_id("action-show").click()
    result = page.get_by_test_id("result")
    expect(result).to_be_visible()
    classes = result.locator("[data-testid^='result-class-']")
    expect(classes).to_have_count(2)
    assert {name.lower() for name in classes.all_inner_texts()} <= HAND_NAMES
    expect(page.get_by_test_id("result-winner")).to_contain_text("pot")
    screenshot(page, "patti-showdown")

    # the stack shown at the seat is the server's, and after leaving the wallet shows it all
    seated = table_message(page, table)["seats"][you - 1]["stack"]
    expect(page.get_by_test_id(f"stack-{you}")).to_contain_text(f"{seated:,} chips")
    leave_and_check_chips(page, wallet)
    assert wallet(page, "practice") == start - buy_in(page, page_api) + seated
    assert page.js_errors == []  # type: ignore[attr-defined]


def buy_in(page: Page, page_api: Any) -> int:
    rooms = page_api(page, "GET", "/api/rooms")["body"]["rooms"]
    return int(next(room["buy_in"] for room in rooms if room["key"] == ROOM))


def test_sideshow_as_the_asked_player_then_pack(
    page: Page, scripted: Scripted, play_as_guest: Any, page_api: Any, wallet: Any, screenshot: Any
) -> None:
    play_as_guest(page)
    start = wallet(page, "practice")
    plan: JSON = {}
    table, you = seat_table(page, scripted, page_api, plan)

    # the player after us (seat 2) asks us for a sideshow: accept
    my_turn(page)
    after = 2
    plan["ask"] = after
    page.get_by_test_id("action-chaal").click()
    prompt = page.get_by_test_id("sideshow-prompt")
    expect(prompt).to_be_visible()
    expect(page.get_by_test_id("sideshow-countdown")).to_have_text(re.compile(r"\d+s"))
    expect(page.get_by_test_id("action-chaal")).to_be_disabled()  # nobody moves meanwhile
    screenshot(page, "patti-sideshow-prompt")
    page.get_by_test_id("action-accept").click()
    expect(prompt).to_be_hidden()
    expect(page.get_by_test_id("sideshow-seen")).to_be_visible()

    # asked again: refuse (nothing new is shown)
    my_turn(page)
    plan["ask"] = after
    page.get_by_test_id("action-chaal").click()
    expect(prompt).to_be_visible()
    page.get_by_test_id("action-refuse").click()
    expect(prompt).to_be_hidden()

    # pack: our seat is marked, the others finish the game
    my_turn(page)
    page.get_by_test_id("action-pack").click()
    expect(page.get_by_test_id(f"patti-seat-{you}")).to_contain_text("packed")
    result = page.get_by_test_id("result")
    expect(result).to_be_visible()
    expect(page.get_by_test_id("result-me")).to_contain_text("You lost")
    seated = table_message(page, table)["seats"][you - 1]["stack"]
    expect(page.get_by_test_id(f"stack-{you}")).to_contain_text(f"{seated:,} chips")
    leave_and_check_chips(page, wallet)
    assert wallet(page, "practice") == start - buy_in(page, page_api) + seated
    assert page.js_errors == []  # type: ignore[attr-defined]
