"""The web client's front door in a real browser: sign-in, the lobby, quick-seat, private tables
and invites, spectators, the top bar's chips (real, gold and practice), guests and the rooms for
real chips, gold tables, reconnecting; screenshots of each screen."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from rummyhall.economy import ledger
from rummyhall.store.database import Database

# Guests play the practice rooms (practice chips only: a room for real chips needs an account).
QUICK_ROOM = "practice-indian13-classic-points-1-6p"
PRIVATE_ROOM = "practice-patti-10-5p"
REAL_ROOM = "indian13-classic-points-1-6p"


def last_message(page: Page) -> Any:
    return page.evaluate("window.rummyhall.lastTableMessage")


def seated_count(page: Page) -> int:
    return page.locator("[data-testid^='seat-'][data-empty='false']").count()


def test_sign_up_log_out_log_in_and_guest(
    page: Page, screenshot: Callable[..., Any], wallet: Callable[..., int]
) -> None:
    page.goto("/")
    expect(page.get_by_test_id("signin")).to_be_visible()
    screenshot(page, "signin")

    # a name nobody may take, then a weak password: explained in plain words
    page.get_by_test_id("signin-name").fill("guest-me")
    page.get_by_test_id("signin-password").fill("long enough")
    page.get_by_test_id("signin-register").click()
    expect(page.get_by_test_id("signin-error")).to_contain_text("cannot be used")
    page.get_by_test_id("signin-name").fill("meera")
    page.get_by_test_id("signin-password").fill("short")
    page.get_by_test_id("signin-register").click()
    expect(page.get_by_test_id("signin-error")).to_contain_text("too weak")

    page.get_by_test_id("signin-password").fill("a good password")
    page.get_by_test_id("signin-register").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("player-name")).to_have_text("meera")
    # A player's two wallets: real chips, and practice chips named as such.
    expect(page.get_by_test_id("chips")).to_have_attribute("data-chips", str(wallet(page)))
    practice = page.get_by_test_id("practice-chips")
    expect(practice).to_have_attribute("data-chips", str(wallet(page, "practice")))
    expect(practice).to_contain_text("practice chips")
    expect(page.get_by_test_id("guest-notice")).to_be_hidden()

    page.get_by_test_id("logout").click()
    expect(page.get_by_test_id("signin")).to_be_visible()
    expect(page.get_by_test_id("player-name")).to_have_count(0)

    page.get_by_test_id("signin-name").fill("meera")
    page.get_by_test_id("signin-password").fill("not the password")
    page.get_by_test_id("signin-login").click()
    expect(page.get_by_test_id("signin-error")).to_have_text("The name or the password is wrong.")
    page.get_by_test_id("signin-password").fill("a good password")
    page.get_by_test_id("signin-password").press("Enter")  # the form submits with Enter
    expect(page.get_by_test_id("player-name")).to_have_text("meera")

    # the session survives a reload
    page.reload()
    expect(page.get_by_test_id("player-name")).to_have_text("meera")

    page.get_by_test_id("logout").click()
    page.get_by_test_id("signin-guest").click()
    expect(page.get_by_test_id("player-name")).to_contain_text(re.compile(r"^guest-"))
    # A guest holds practice chips only: no real wallet is shown, the practice one says so.
    assert wallet(page) == 0
    expect(page.get_by_test_id("chips")).to_have_count(0)
    expect(page.get_by_test_id("practice-chips")).to_have_attribute(
        "data-chips", str(wallet(page, "practice"))
    )
    expect(page.get_by_test_id("practice-chips")).to_contain_text("practice chips")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_changing_the_password_signs_out_the_other_pages(
    page: Page,
    new_page: Callable[..., Page],
    sign_up: Callable[..., None],
    screenshot: Callable[..., Any],
) -> None:
    """The player's name opens the account dialog; a wrong current password is explained and the
    dialog stays; a right one changes it, and another page signed in to the account (at a table,
    its socket open) goes back to the sign-in screen."""
    sign_up(page, "ravi", "first password 1")
    other = new_page()
    other.goto("/")
    other.get_by_test_id("signin-name").fill("ravi")
    other.get_by_test_id("signin-password").fill("first password 1")
    other.get_by_test_id("signin-login").click()
    other.get_by_test_id("quick-seat-practice-patti-10-4p").click()
    other.wait_for_url(re.compile(r"#/table/\d+$"))
    other.get_by_test_id("player-name").wait_for()

    page.get_by_test_id("account").click()
    dialog = page.get_by_test_id("account-dialog")
    dialog.get_by_test_id("password-old").fill("not my password")
    dialog.get_by_test_id("password-new").fill("second password 2")
    dialog.get_by_test_id("password-change").click()
    expect(dialog.get_by_test_id("password-error")).to_have_text(
        "That is not your current password."
    )
    screenshot(page, "account-dialog")
    dialog.get_by_test_id("password-old").fill("first password 1")
    dialog.get_by_test_id("password-change").click()
    expect(dialog).to_have_count(0)
    expect(page.get_by_test_id("toast").last).to_contain_text("1 other session was signed out")
    expect(other.get_by_test_id("signin")).to_be_visible()

    page.reload()
    expect(page.get_by_test_id("player-name")).to_have_text("ravi")
    other.get_by_test_id("signin-name").fill("ravi")
    other.get_by_test_id("signin-password").fill("second password 2")
    other.get_by_test_id("signin-login").click()
    expect(other.get_by_test_id("player-name")).to_have_text("ravi")
    assert page.js_errors == [] and other.js_errors == []  # type: ignore[attr-defined]


def test_lobby_shows_every_room(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    sign_up(page, "roomy")
    rooms = page_api(page, "GET", "/api/rooms")["body"]
    for game in rooms["games"]:
        expect(page.get_by_test_id(f"game-{game}")).to_be_visible()
        for kind in ("chips", "practice"):
            expect(page.get_by_test_id(f"rooms-{game}-{kind}")).to_be_visible()
    for room in rooms["rooms"]:
        card = page.get_by_test_id(f"room-{room['key']}")
        if room["currency"] == "gold":  # a gold twin: its silver room's quick seat goes there
            expect(card).to_have_count(0)
            continue
        expect(card).to_have_attribute("data-currency", room["currency"])
        # the stake, named for what it is (entry fee, point value, boot), apart from the buy-in
        expect(page.get_by_test_id(f"fact-cost-{room['key']}")).not_to_be_empty()
        expect(card).to_contain_text(f"{room['seats']} seats")
        expect(card).to_contain_text(f"{room['buy_in']:,}")
        # a room of a tier says which; one above a new player's level says what opens it
        tier = next((t for t in rooms["tiers"] if t["key"] == room["tier"]), None)
        expect(page.get_by_test_id(f"tier-badge-{room['key']}")).to_have_count(int(bool(tier)))
        if tier is not None and tier["level"] > 1:
            expect(page.get_by_test_id(f"quick-seat-{room['key']}")).to_have_count(0)
            expect(page.get_by_test_id(f"tier-locked-{room['key']}")).to_contain_text(
                f"Opens with the title {tier['title']} (level {tier['level']})"
            )
        else:
            expect(page.get_by_test_id(f"quick-seat-{room['key']}")).to_be_enabled()
        # a practice room says so, and its money is practice chips
        practice = room["currency"] == "practice"
        expect(page.get_by_test_id(f"practice-badge-{room['key']}")).to_have_count(int(practice))
        buy_in = page.get_by_test_id(f"fact-buy-in-{room['key']}")
        if practice:
            expect(buy_in).to_contain_text("practice chips")
        else:
            expect(buy_in).not_to_contain_text("practice")
    screenshot(page, "lobby")


def test_a_guest_sees_that_real_chips_need_an_account(
    page: Page,
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    wallet: Callable[..., int],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    notice = page.get_by_test_id("guest-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("practice chips")
    expect(notice).to_contain_text("need an account")
    rooms = page_api(page, "GET", "/api/rooms")["body"]["rooms"]
    for room in rooms:
        key = room["key"]
        if room["currency"] == "gold":
            expect(page.get_by_test_id(f"room-{key}")).to_have_count(0)
        elif room["currency"] == "practice":
            expect(page.get_by_test_id(f"quick-seat-{key}")).to_be_enabled()
            expect(page.get_by_test_id(f"needs-account-{key}")).to_have_count(0)
        else:
            # no buttons for a guest, but the reason and the way to an account
            expect(page.get_by_test_id(f"quick-seat-{key}")).to_have_count(0)
            expect(page.get_by_test_id(f"create-private-{key}")).to_have_count(0)
            expect(page.get_by_test_id(f"needs-account-{key}")).to_contain_text("sign up")
    # the practice rooms come first for a guest
    first = page.locator("[data-testid^='rooms-indian13-']").first
    expect(first).to_have_attribute("data-testid", "rooms-indian13-practice")
    screenshot(page, "lobby-guest")

    # The server refuses it too (a guest cannot get there by hand), and changes nothing.
    before = wallet(page, "practice")
    refused = page_api(page, "POST", "/api/quick-seat", {"room": REAL_ROOM})
    assert (refused["status"], refused["body"]["error"]["code"]) == (403, "practice_only")
    assert wallet(page, "practice") == before and wallet(page) == 0

    # A friend's private table for real chips: the guest may look, not sit; the page says why.
    host = new_page()
    sign_up(host, "realhost")
    created = page_api(host, "POST", "/api/tables", {"room": REAL_ROOM, "private": True})
    page.goto(f"/#/invite/{created['body']['invite']}")
    expect(page.get_by_test_id("table")).to_be_visible()
    page.get_by_test_id("take-seat").click()
    expect(page.get_by_test_id("toast").last).to_contain_text("Guests play with practice chips")
    expect(page.get_by_test_id("spectator-banner")).to_be_visible()

    # "Sign up" takes the guest to the sign-in form.
    page.get_by_test_id("back-to-lobby").click()
    page.get_by_test_id("guest-sign-up").click()
    expect(page.get_by_test_id("signin")).to_be_visible()
    assert page.js_errors == [] and host.js_errors == []  # type: ignore[attr-defined]


def _lose_practice_chips(database_url: str, account_id: int, chips: int) -> None:
    """Practice chips lost, as at a table (to the practice house), written to the server's
    database from here (another process's writes are how the audit and admin work too)."""

    async def lose() -> None:
        db = await Database.open(database_url, migrate=False)
        try:
            async with db.transaction() as session:
                wallet = ledger.PRACTICE.wallet(account_id)
                await ledger.transfer(
                    session,
                    f"lost:{account_id}",
                    [(wallet, -chips), (ledger.PRACTICE.house, chips)],
                    kind="test",
                )
        finally:
            await db.close()

    # (A thread of its own: Playwright's sync API holds this thread's event loop.)
    thread = threading.Thread(target=lambda: asyncio.run(lose()))
    thread.start()
    thread.join()


def test_practice_chips_are_refilled_when_low(
    page: Page,
    play_as_guest: Callable[[Page], None],
    page_api: Callable[..., Any],
    wallet: Callable[..., int],
    server: Any,
) -> None:
    play_as_guest(page)
    expect(page.get_by_test_id("practice-refill")).to_have_count(0)  # 10,000: not low
    me = page_api(page, "GET", "/api/me")["body"]
    _lose_practice_chips(server.database_url, int(me["id"]), 9_500)
    page.reload()
    pill = page.get_by_test_id("practice-chips")
    expect(pill).to_have_attribute("data-chips", "500")
    page.get_by_test_id("practice-refill").click()
    expect(page.get_by_test_id("toast").last).to_contain_text("topped up to 10,000")
    expect(pill).to_have_attribute("data-chips", "10000")
    expect(page.get_by_test_id("practice-refill")).to_have_count(0)
    assert wallet(page, "practice") == 10_000 and wallet(page) == 0
    assert page.js_errors == []  # type: ignore[attr-defined]


def _set_wallets(database_url: str, account_id: int, *, silver: int, gold: int) -> None:
    """A player's silver and gold set to ``silver`` and ``gold`` (what is over goes to the house
    of its currency, what is missing comes from its mint), written to the server's database from
    here (as above)."""

    async def move() -> None:
        db = await Database.open(database_url, migrate=False)
        try:
            async with db.transaction() as session:
                for currency, wanted in ((ledger.CHIPS, silver), (ledger.GOLD, gold)):
                    wallet = currency.wallet(account_id)
                    over = await ledger.balance(session, wallet) - wanted
                    if over:
                        source = currency.house if over > 0 else currency.mint
                        await ledger.transfer(
                            session, f"test:{currency.key}:{account_id}:{wanted}",
                            [(wallet, -over), (source, over)], kind="test",
                        )  # fmt: skip
        finally:
            await db.close()

    thread = threading.Thread(target=lambda: asyncio.run(move()))
    thread.start()
    thread.join()


def test_a_player_short_of_silver_plays_gold(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    wallet: Callable[..., int],
    server: Any,
) -> None:
    """The lobby shows the silver rooms only; a player with gold reads that a room plays gold
    when their silver runs short, and its quick seat takes them to a gold table once it has."""
    sign_up(page, "goldie")
    # The starting purse: 100 silver (the level-1 limit) and the welcome gold.
    expect(page.get_by_test_id("chips")).to_have_attribute("data-chips", "100")
    expect(page.get_by_test_id("gold-chips")).to_have_attribute("data-chips", "1000")
    expect(page.get_by_test_id(f"gold-note-{REAL_ROOM}")).to_contain_text(
        "Plays gold when your silver runs short"
    )
    me = page_api(page, "GET", "/api/me")["body"]
    _set_wallets(server.database_url, int(me["id"]), silver=100, gold=0)
    page.reload()
    expect(page.get_by_test_id("gold-chips")).to_have_attribute("data-chips", "0")
    expect(page.get_by_test_id(f"quick-seat-{REAL_ROOM}")).to_be_enabled()
    expect(page.get_by_test_id(f"gold-note-{REAL_ROOM}")).to_have_count(0)  # no gold: no note
    _set_wallets(server.database_url, int(me["id"]), silver=50, gold=500)
    page.reload()
    expect(page.get_by_test_id("gold-chips")).to_have_attribute("data-chips", "500")
    expect(page.get_by_test_id(f"gold-note-{REAL_ROOM}")).to_be_visible()
    expect(page.get_by_test_id(f"room-gold-{REAL_ROOM}")).to_have_count(0)
    page.get_by_test_id(f"quick-seat-{REAL_ROOM}").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.locator("body")).to_have_attribute("data-currency", "gold")
    me = page_api(page, "GET", "/api/me")["body"]
    assert [(t["room"], t["currency"]) for t in me["tables"]] == [(f"gold-{REAL_ROOM}", "gold")]
    assert (wallet(page), wallet(page, "gold")) == (50, 500 - 160)
    expect(page.get_by_test_id("gold-chips")).to_have_attribute("data-chips", "340")
    page_api(page, "POST", f"/api/tables/{me['tables'][0]['table']}/leave")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_every_game_view_loads_through_the_registry(
    page: Page, play_as_guest: Callable[[Page], None], page_api: Callable[..., Any]
) -> None:
    """The shell finds the games at GET /api/games and imports each view module from the URL it
    gives (js/games/registry.js); each has the interface of docs/client.md, and the lobby heads
    each game with its short name and blurb and has its style sheet linked."""
    play_as_guest(page)
    games = page_api(page, "GET", "/api/games")["body"]["games"]
    assert games
    loaded = page.evaluate(
        """async () => {
            const registry = await import('/js/games/registry.js');
            return (await registry.gameViews()).map(({ info, module }) => ({
                name: info.name,
                exports: Object.keys(module).sort(),
                guide: Boolean(module.howToPlay && module.howToPlay.title),
                styled: Boolean(document.querySelector(`link[data-game="${info.name}"]`)),
            }));
        }"""
    )
    assert [entry["name"] for entry in loaded] == [game["name"] for game in games]
    for entry in loaded:
        assert {"createView", "howToPlay", "dealtCards", "roomHeading"} <= set(entry["exports"])
        assert entry["guide"] and entry["styled"], entry
    for game in games:
        head = page.get_by_test_id(f"game-{game['name']}").locator(".game-head")
        expect(head.locator("h2")).to_have_text(game["label"])
        expect(head).to_contain_text(game["blurb"])
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_quick_seat_fills_the_table_with_bots(
    page: Page,
    play_as_guest: Callable[[Page], None],
    wallet: Callable[..., int],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    play_as_guest(page)
    before = wallet(page, "practice")
    page.get_by_test_id(f"quick-seat-{QUICK_ROOM}").click()
    table = page.get_by_test_id("table")
    expect(table).to_be_visible()
    expect(page).to_have_url(re.compile(r"#/table/\d+$"))
    table_id = int(page.url.rsplit("/", 1)[1])

    # every seat fills: you at the bottom, bots (with their badge) around the table
    expect(page.locator("[data-testid^='seat-'][data-empty='false']")).to_have_count(6)
    you = int(table.get_attribute("data-you") or 0)
    assert you >= 1
    mine = page.get_by_test_id(f"seat-{you}")
    expect(mine).to_have_attribute("data-place", "bottom")
    expect(mine).to_have_attribute("data-bot", "false")
    bots = page.locator("[data-testid^='seat-'][data-bot='true']")
    expect(bots).to_have_count(5)
    for seat in range(1, 7):
        if seat != you:
            expect(page.get_by_test_id(f"bot-badge-{seat}")).to_be_visible()

    # the top bar shows the wallet after the buy-in, exactly as /api/me says
    rooms = page_api(page, "GET", "/api/rooms")["body"]["rooms"]
    room = next(r for r in rooms if r["key"] == QUICK_ROOM)
    after = wallet(page, "practice")
    assert after == before - room["buy_in"]
    expect(page.get_by_test_id("practice-chips")).to_have_attribute("data-chips", str(after))
    # the table says it plays with practice chips
    expect(page.get_by_test_id("table-practice")).to_be_visible()
    me = page_api(page, "GET", "/api/me")["body"]
    assert [(t["table"], t["seat"], t["room"]) for t in me["tables"]] == [
        (table_id, you, QUICK_ROOM)
    ]

    # the seats match the table's info; the turn timer runs on an awaited seat
    info = page_api(page, "GET", f"/api/tables/{table_id}")["body"]["table"]
    for entry in info["seats"]:
        expect(page.get_by_test_id(f"seat-name-{entry['seat']}")).to_have_text(entry["name"])
    expect(page.locator("[data-testid^='seat-'][data-active='true']").first).to_be_visible()
    screenshot(page, "table-filled")

    # a reload comes back to the same table, same seat
    page.reload()
    expect(page.get_by_test_id("table")).to_have_attribute("data-you", str(you))
    expect(page.locator("[data-testid^='seat-'][data-empty='false']")).to_have_count(6)

    # the lobby lists it under "your tables"; leaving returns the chips (now or after the game)
    page.get_by_test_id("back-to-lobby").click()
    expect(page.get_by_test_id(f"rejoin-{table_id}")).to_be_visible()
    page.get_by_test_id(f"rejoin-{table_id}").click()
    expect(page.get_by_test_id("table")).to_have_attribute("data-you", str(you))
    # Mid-game the page first says what leaving costs; between games it leaves at once.
    page.get_by_test_id("leave").click()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="confirm"]')
            || document.querySelector('[data-testid="lobby"]')"""
    )
    if page.get_by_test_id("confirm").count():
        expect(page.get_by_test_id("confirm")).to_contain_text("drop")
        page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("toast").last).to_contain_text(re.compile("leave|left"))
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_private_table_and_invite_link(
    page: Page,
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
    sign_up: Callable[..., None],
    screenshot: Callable[..., Any],
) -> None:
    sign_up(page, "host")
    page.get_by_test_id(f"create-private-{PRIVATE_ROOM}").click()
    dialog = page.get_by_test_id("invite-dialog")
    expect(dialog).to_be_visible()
    link = page.get_by_test_id("invite-link").input_value()
    assert re.search(r"#/invite/[\w-]+$", link), link
    page.get_by_test_id("invite-go").click()
    table = page.get_by_test_id("table")
    expect(table).to_be_visible()
    table_id = table.get_attribute("data-table")
    # nobody sits yet: the host watches, every seat waits
    expect(page.get_by_test_id("spectator-banner")).to_be_visible()
    expect(page.locator("[data-testid^='seat-'][data-empty='true']")).to_have_count(5)
    expect(page.get_by_test_id("table-status")).to_have_text("Waiting for players…")
    screenshot(page, "table-empty")

    # a friend opens the link in another browser: the same table, with a "take a seat" button
    friend = new_page()
    friend.goto(link)
    expect(friend.get_by_test_id("signin")).to_be_visible()
    friend.get_by_test_id("signin-guest").click()
    expect(friend.get_by_test_id("table")).to_have_attribute("data-table", table_id or "")
    expect(friend.get_by_test_id("table-title")).to_have_text("Rummy Patti")
    friend.get_by_test_id("take-seat").click()
    expect(friend.get_by_test_id("spectator-banner")).to_be_hidden()
    friend_seat = friend.get_by_test_id("table").get_attribute("data-you")
    assert friend_seat
    friend_name = friend.get_by_test_id("player-name").inner_text()
    # the host sees the friend sit (live, over the socket)
    expect(page.get_by_test_id(f"seat-name-{friend_seat}")).to_have_text(friend_name)
    assert page.js_errors == [] and friend.js_errors == []  # type: ignore[attr-defined]


def test_spectator_sees_no_hidden_cards(
    page: Page,
    new_page: Callable[..., Page],
    play_as_guest: Callable[[Page], None],
) -> None:
    play_as_guest(page)
    page.get_by_test_id("quick-seat-practice-patti-10-4p").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    table_id = int(page.get_by_test_id("table").get_attribute("data-table") or 0)

    watcher = new_page()
    play_as_guest(watcher)
    watch = watcher.get_by_test_id(f"watch-{table_id}")
    expect(watch).to_be_visible(timeout=10_000)  # the lobby refreshes its tables every 5 s
    watch.click()
    expect(watcher.get_by_test_id("spectator-banner")).to_be_visible()
    expect(watcher.locator("[data-testid^='seat-'][data-empty='false']")).to_have_count(4)
    for _ in range(5):
        # read the last message and the page in one go (no update can land in between)
        seen = watcher.evaluate(
            """() => {
                const message = window.rummyhall.lastTableMessage;
                const view = JSON.stringify(message.view || {});
                const faces = [...document.querySelectorAll('[data-card]')]
                    .map((card) => card.dataset.card.split('#')[0]);
                return {you: message.you, hand: 'hand' in (message.view || {}),
                        hidden: faces.filter((code) => !view.includes(`"${code}`)
                                                       && !view.includes(` ${code}`))};
            }"""
        )
        assert seen["you"] is None
        assert not seen["hand"]
        # every face on the page is one the spectators' view shows (no hidden card)
        assert seen["hidden"] == [], seen
        expect(watcher.locator("[data-testid='hand'] [data-card]")).to_have_count(0)
        watcher.wait_for_timeout(300)


def test_reconnect_banner_and_the_table_comes_back(
    page: Page,
    play_as_guest: Callable[[Page], None],
    server: Any,
) -> None:
    play_as_guest(page)
    page.get_by_test_id(f"quick-seat-{QUICK_ROOM}").click()
    table = page.get_by_test_id("table")
    expect(table).to_be_visible()
    expect(page.locator("[data-testid^='seat-'][data-empty='false']")).to_have_count(6)
    you = table.get_attribute("data-you")
    banner = page.get_by_test_id("connection-banner")
    expect(banner).to_be_hidden()
    page.evaluate("window.beforeStop = window.rummyhall.lastTableMessage")
    server.stop()
    try:
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("reconnecting")
    finally:
        server.start()
    expect(banner).to_be_hidden(timeout=15_000)
    expect(table).to_have_attribute("data-you", you or "")
    # the socket watched the table again: a fresh snapshot of the same table arrived
    page.wait_for_function("window.rummyhall.lastTableMessage !== window.beforeStop")
    assert last_message(page)["table"] == int(table.get_attribute("data-table") or 0)
    expect(page.locator("[data-testid^='seat-'][data-empty='false']")).to_have_count(6)


def test_keyboard_and_the_client_files(
    page: Page, play_as_guest: Callable[[Page], None], server: Any
) -> None:
    # the client's files are revalidated on every load, so a deploy is picked up at once
    for path in ("/", "/js/app.js", "/css/base.css"):
        response = page.request.get(server.url + path)
        assert response.ok, path
        assert response.headers["cache-control"] == "no-cache", path

    # sign in as a guest with the keyboard alone: Tab to the button, Enter
    page.goto("/")
    expect(page.get_by_test_id("signin-name")).to_be_focused()
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == "signin-guest":
            break
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("lobby")).to_be_visible()
    # a quick-seat button is reachable and activates with Space
    button = page.get_by_test_id(f"quick-seat-{QUICK_ROOM}")
    button.focus()
    page.keyboard.press(" ")
    expect(page.get_by_test_id("table")).to_be_visible()
    # a refused request is explained in plain words: the invite code does not exist
    page.goto("/#/invite/no-such-code")
    expect(page.get_by_test_id("invite-error")).to_contain_text("not valid")
