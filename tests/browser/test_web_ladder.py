"""The ladder in the browser: the profile page (level, title, the clover bar, silver against the
silver limit, gold, games and rating), the daily bonus (its parts, what the silver limit cuts off,
the top bar's chips after it, no second collection the same day), the leaderboards (a tab per
board, pages with "More", your own line highlighted in the table or pinned under it, "not rated
yet" before 20 games) and the level-up moment at a table when a game's end lifts your level.

Ladder rows are written to the server's database from here through the ladder's own path
(:func:`rummyhall.economy.ladder.record_game`, as a finished game writes them), in a thread of its
own (Playwright's sync API holds this thread's event loop); screenshots: ``profile``,
``profile-bonus``, ``leaderboard``, ``leaderboard-pinned``, ``levelup``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from ladder_kit import SEEDED_GAME, fits_the_phone, lose_chips, me, record_games, register
from playwright.sync_api import Page, expect

from conftest import PHONE, wait_until
from rummyhall.economy import achievements
from rummyhall.economy.wallets import STARTING_GOLD
from rummyhall.games.protocol import Standing

ROOM = "indian13-classic-points-1-2p"  # a Desert room of real chips (x1.0), two seats


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    # One game a table: the level-up test counts on exactly one finished game (a bot may drop
    # at its first turn, and with no pause the next game would start and end before the
    # player's leave lands, each worth clover).
    return ["--bot-wait", "0", "--bot-think-ms", "50", "--next-game-ms", "3600000"]


# ---- the profile and the daily bonus ------------------------------------------------------


def test_profile_of_a_new_player_and_a_daily_bonus_the_limit_takes(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    wallet: Callable[..., int],
    screenshot: Callable[..., Any],
) -> None:
    sign_up(page, "ladder-ann")
    expect(page.get_by_test_id("bonus-dot").first).to_be_attached()  # the bonus is ready
    page.get_by_test_id("nav-profile").click()
    expect(page).to_have_url(re.compile(r"#/profile$"))
    expect(page.get_by_test_id("nav-profile")).to_have_attribute("aria-current", "page")

    # level 1, the Ant, nothing on the bar yet
    expect(page.get_by_test_id("profile-level")).to_have_attribute("data-level", "1")
    expect(page.get_by_test_id("profile-title")).to_have_text("Ant")
    bar = page.get_by_test_id("clover-bar")
    expect(bar).to_have_attribute("data-into", "0")
    expect(bar).to_have_attribute("data-to-next", "100")
    assert (
        page.locator(".clover-fill").evaluate("(node) => node.getBoundingClientRect().width") == 0
    )
    expect(page.get_by_test_id("profile-clover")).to_have_text("0 / 100 clover")
    expect(page.get_by_test_id("profile-to-next")).to_have_text("100 clover to level 2")
    expect(page.get_by_test_id("profile-next-title")).to_contain_text("Butterfly at level 3")
    # the chips: 100 silver, full up to the level-1 limit (which caps the daily bonus only), and
    # the welcome purse of gold
    expect(page.get_by_test_id("profile-silver")).to_have_text("100")
    expect(page.get_by_test_id("profile-silver-limit")).to_have_text("/ 100 silver")
    expect(page.get_by_test_id("profile")).to_contain_text("caps the daily bonus only")
    expect(page.get_by_test_id("profile-gold")).to_have_text("1,000 gold")
    expect(page.get_by_test_id("profile-games")).to_have_text("0")
    expect(page.get_by_test_id("profile-rating")).to_have_text("rated after 20 games (0 of 20)")
    expect(page.get_by_test_id("bonus")).to_have_attribute("data-available", "true")
    expect(page.get_by_test_id("bonus-breakdown")).to_have_count(0)
    screenshot(page, "profile")
    assert fits_the_phone(page) == []

    # Collect: 20 silver (a first day: no streak bonus; level 1: no level bonus), all of it above
    # the limit, so all of it is lost, and the wallet stays where it was.
    page.get_by_test_id("bonus-collect").click()
    breakdown = page.get_by_test_id("bonus-breakdown")
    expect(breakdown).to_be_visible()

    def part(name: str) -> Any:
        return page.get_by_test_id(f"bonus-{name}").locator("dd")

    expect(part("base")).to_have_text("+20")
    expect(page.get_by_test_id("bonus-streak")).to_contain_text("1 day in a row")
    expect(part("streak")).to_have_text("+0")
    expect(page.get_by_test_id("bonus-level")).to_contain_text("level 1")
    expect(part("level")).to_have_text("+0")
    expect(part("total")).to_have_text("20 silver")
    expect(part("credited")).to_have_text("0")
    expect(page.get_by_test_id("bonus-lost")).to_have_text(
        "20 lost: your silver is at its limit (100)."
    )
    # no second collection today: the button is gone, the card says so, with the countdown
    expect(page.get_by_test_id("bonus-collect")).to_have_count(0)
    expect(page.get_by_test_id("bonus-collected")).to_contain_text("Collected today")
    expect(page.get_by_test_id("bonus")).to_have_attribute("data-available", "false")
    countdown = page.get_by_test_id("bonus-next")
    expect(countdown).to_have_text(
        re.compile(r"^Next bonus in (\d+ h \d\d min \d\d s|\d+ min \d\d s|\d+ s)$")
    )
    at = int(countdown.get_attribute("data-at") or 0)
    assert at == me(page, page_api)["ladder"]["next_bonus_at"] > time.time() * 1000
    expect(page.get_by_test_id("bonus-dot")).to_have_count(0)
    expect(page.get_by_test_id("chips")).to_have_attribute("data-chips", "100")
    assert wallet(page) == 100
    screenshot(page, "profile-bonus")
    assert fits_the_phone(page) == []

    page.reload()
    expect(page.get_by_test_id("bonus-collected")).to_be_visible()
    expect(page.get_by_test_id("bonus-collect")).to_have_count(0)
    again = page_api(page, "POST", "/api/daily-bonus")
    assert again["status"] == 409 and again["body"]["error"]["code"] == "bonus_claimed"
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_daily_bonus_fills_silver_up_to_the_limit_and_the_top_bar_follows(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    wallet: Callable[..., int],
    server: Any,
) -> None:
    sign_up(page, "ladder-bea")
    lose_chips(server.database_url, int(me(page, page_api)["id"]), 100 - 90)
    page.goto("/#/profile")
    chips = page.get_by_test_id("chips")
    expect(chips).to_have_attribute("data-chips", "90")
    expect(page.get_by_test_id("profile-silver")).to_have_text("90")

    page.get_by_test_id("bonus-collect").click()
    expect(page.get_by_test_id("bonus-total").locator("dd")).to_have_text("20 silver")
    expect(page.get_by_test_id("bonus-credited").locator("dd")).to_have_text("10")
    expect(page.get_by_test_id("bonus-lost")).to_have_text(
        "10 lost: your silver is at its limit (100)."
    )
    expect(chips).to_have_attribute("data-chips", "100")
    expect(chips).to_contain_text("100")
    expect(page.get_by_test_id("profile-silver")).to_have_text("100")
    assert wallet(page) == 100
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_guest_has_no_profile_but_sees_the_leaderboards(
    page: Page, play_as_guest: Callable[[Page], None]
) -> None:
    play_as_guest(page)
    expect(page.get_by_test_id("nav-profile")).to_have_count(0)
    expect(page.get_by_test_id("bonus-dot")).to_have_count(0)
    page.get_by_test_id("nav-leaderboard").click()
    expect(page.get_by_test_id("board-me")).to_contain_text("Guests play with practice chips")
    page.goto("/#/profile")
    expect(page.get_by_test_id("profile-guest")).to_contain_text("Sign up")
    assert page.js_errors == []  # type: ignore[attr-defined]


# ---- the leaderboards -------------------------------------------------------------------------


def test_a_new_player_is_not_rated_yet_and_every_board_has_a_tab(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    screenshot: Callable[..., Any],
) -> None:
    sign_up(page, "ladder-cy")
    # On a phone the Profile and Leaderboards links fold into the menu.
    page.set_viewport_size(PHONE)
    expect(page.get_by_test_id("nav-leaderboard")).to_be_hidden()
    page.get_by_test_id("nav-more").click()
    expect(page.get_by_test_id("nav-more")).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_test_id("nav-profile")).to_be_visible()
    screenshot(page, "nav-menu")
    page.get_by_test_id("nav-leaderboard").click()
    expect(page).to_have_url(re.compile(r"#/leaderboard$"))
    expect(page.get_by_test_id("nav-leaderboard")).to_be_hidden()  # the menu closed
    # ... and the boards are a list there, not tabs
    board = page.get_by_test_id("leaderboard")
    expect(board).to_have_attribute("data-board", "all")
    expect(page.get_by_test_id("board-tabs")).to_be_hidden()
    pick = page.get_by_test_id("board-select")
    expect(pick).to_have_value("all")
    month_board = pick.locator("option").last.get_attribute("value")
    assert month_board and re.fullmatch(r"month:\d{4}-\d\d", month_board)
    pick.select_option(month_board)
    expect(board).to_have_attribute("data-board", month_board)
    expect(pick).to_have_value(month_board)
    page.set_viewport_size({"width": 1366, "height": 768})
    expect(pick).to_be_hidden()
    page.get_by_test_id("board-tab-all").click()
    expect(board).to_have_attribute("data-board", "all")
    expect(page.get_by_test_id("board-tab-all")).to_have_attribute("aria-current", "page")
    expect(page.get_by_test_id("board-me")).to_contain_text("You are not rated yet")
    expect(page.get_by_test_id("board-me")).to_contain_text("0 of 20 games")
    expect(page.locator("[data-testid^='board-row-'][data-me='true']")).to_have_count(0)

    # a tab per board: overall, each game of the catalog by its label, this month (in Berlin)
    games = page_api(page, "GET", "/api/games")["body"]["games"]
    for game in games:
        expect(page.get_by_test_id(f"board-tab-game-{game['name']}")).to_have_text(game["label"])
    month = page.evaluate(
        """() => { const parts = new Intl.DateTimeFormat('en-US', {timeZone: 'Europe/Berlin',
            year: 'numeric', month: 'long'}).formatToParts(new Date());
            const part = (t) => parts.find((p) => p.type === t).value;
            return `${part('month')} ${part('year')}`; }"""
    )
    expect(page.get_by_test_id("board-tab-month")).to_contain_text(month)
    page.get_by_test_id("board-tab-month").click()
    expect(board).to_have_attribute("data-board", re.compile(r"^month:\d{4}-\d\d$"))
    name = board.get_attribute("data-board")
    assert page_api(page, "GET", f"/api/leaderboard?board={name}")["status"] == 200
    expect(page.get_by_test_id("board-title")).to_have_text(month)
    game = games[0]
    page.get_by_test_id(f"board-tab-game-{game['name']}").click()
    expect(board).to_have_attribute("data-board", f"game:{game['name']}")
    expect(page.get_by_test_id("board-title")).to_have_text(game["label"])
    expect(page.get_by_test_id("board-me")).to_contain_text("0 of 20 games on this board")

    # a board that does not exist is said so in words
    page.goto("/#/leaderboard/game:nothing")
    expect(page.get_by_test_id("board-error")).to_have_text("There is no such leaderboard.")
    expect(page.get_by_test_id("board-table")).to_be_hidden()
    assert fits_the_phone(page) == []
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_rated_boards_page_with_more_and_keep_your_own_line(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    server: Any,
    screenshot: Callable[..., Any],
) -> None:
    # 24 rated players (24 games each, k of them won: ratings 6500 + 62.5 k) and you, rated
    # last: 21 games in fourth place, 35 points each, so 3500.
    others = [register(server.url, f"rated-{k:02d}") for k in range(24)]
    sign_up(page, "ladder-dee")
    mine = int(me(page, page_api)["id"])
    games = [
        (account, Standing(place=1 if n < k else 2))
        for k, account in enumerate(others)
        for n in range(24)
    ]
    games += [(mine, Standing(place=4))] * 21
    record_games(server.database_url, games)

    page.get_by_test_id("nav-leaderboard").click()
    api_page = page_api(page, "GET", "/api/leaderboard?board=all&limit=20")["body"]
    assert api_page["rated"] >= 25 and api_page["me"]["rank"] == api_page["rated"]
    rows = page.locator("[data-testid^='board-row-']")
    expect(rows).to_have_count(20)
    expect(page.get_by_test_id("board-rated")).to_have_attribute(
        "data-rated", str(api_page["rated"])
    )
    top = api_page["lines"][0]
    assert top["name"] == "rated-23"
    first = page.get_by_test_id(f"board-row-{top['account']}")
    expect(first).to_have_attribute("data-rank", "1")
    expect(first).to_contain_text("rated-23")
    expect(first.locator(".col-rating")).to_have_text(str(top["rating"]))  # the server's integer
    # you are not on the first page: your line is pinned under it, with your rank
    pinned = page.get_by_test_id("board-me")
    expect(pinned).to_be_visible()
    expect(pinned).to_have_attribute("data-rank", str(api_page["me"]["rank"]))
    expect(pinned).to_contain_text(f"#{api_page['me']['rank']}")
    expect(pinned).to_contain_text("rating 3500")
    expect(page.get_by_test_id(f"board-row-{mine}")).to_have_count(0)
    screenshot(page, "leaderboard-pinned")

    # More: the next page, with your line in it, highlighted; nothing pinned; no more pages
    page.get_by_test_id("board-more").click()
    expect(rows).to_have_count(api_page["rated"])
    own = page.get_by_test_id(f"board-row-{mine}")
    expect(own).to_have_attribute("data-me", "true")
    expect(own).to_have_class(re.compile(r"\bis-me\b"))
    expect(own.locator(".col-rating")).to_have_text("3500")
    expect(pinned).to_be_hidden()
    expect(page.get_by_test_id("board-more")).to_be_hidden()
    ranks = [int(r) for r in rows.evaluate_all("(rows) => rows.map((r) => r.dataset.rank)")]
    assert ranks == list(range(1, api_page["rated"] + 1))
    own.scroll_into_view_if_needed()
    screenshot(page, "leaderboard")
    assert fits_the_phone(page) == []

    # the game's board and this month's have the same players; another game's has none of them
    page.get_by_test_id(f"board-tab-game-{SEEDED_GAME}").click()
    expect(page.get_by_test_id("leaderboard")).to_have_attribute(
        "data-board", f"game:{SEEDED_GAME}"
    )
    expect(page.get_by_test_id(f"board-row-{top['account']}")).to_have_attribute("data-rank", "1")
    page.get_by_test_id("board-tab-month").click()
    expect(page.get_by_test_id(f"board-row-{top['account']}")).to_have_attribute("data-rank", "1")
    other = next(
        g["name"] for g in page_api(page, "GET", "/api/games")["body"]["games"]
        if g["name"] != SEEDED_GAME
    )  # fmt: skip
    page.get_by_test_id(f"board-tab-game-{other}").click()
    expect(page.get_by_test_id("board-empty")).to_be_visible()
    expect(pinned).to_contain_text("not rated yet")

    # the profile says the same
    page.goto("/#/profile")
    expect(page.get_by_test_id("profile-games")).to_have_text("21")
    expect(page.get_by_test_id("profile-rating")).to_have_text("3500")
    assert page.js_errors == []  # type: ignore[attr-defined]


# ---- the level-up moment ----------------------------------------------------------------------


def test_a_game_that_lifts_your_level_is_celebrated_at_the_table(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    server: Any,
    screenshot: Callable[..., Any],
) -> None:
    sign_up(page, "ladder-eve")
    # 248 clover: level 2 (from 100), 2 short of level 3 and its title; any game finished in a
    # Desert room (x1.0, 35 clover at least) lifts it.
    record_games(
        server.database_url,
        [(int(me(page, page_api)["id"]), Standing(place=1))],
        game="promotion",
        multiplier_tenths=31,
    )
    page.goto("/#/profile")
    expect(page.get_by_test_id("profile-level")).to_have_attribute("data-level", "2")
    expect(page.get_by_test_id("profile-to-next")).to_have_text("2 clover to level 3")
    # Level 2's gold, and the seeded game's achievements (a first game, a first win).
    seeded = sum(a.gold for a in achievements.CATALOGUE if a.key in ("first_game", "first_win"))
    expect(page.get_by_test_id("profile-gold")).to_have_text(f"{STARTING_GOLD + 5 + seeded:,} gold")

    page.get_by_test_id("nav-lobby").click()
    page.get_by_test_id(f"quick-seat-{ROOM}").click()
    expect(page.get_by_test_id("table")).to_be_visible()

    # The table plays one game (server_args). Either the bot gives it up at its first turn, or
    # your turn comes, when nothing else can end the game before your leave does.
    def your_turn_or_over() -> Any:
        m = page.evaluate("window.rummyhall.lastTableMessage")
        if not m or m["you"] is None or m["info"]["game_no"] != 1:
            return None
        if not m["info"]["playing"]:
            return "over"
        return "your turn" if "drop" in (m.get("legal") or []) else None

    if wait_until(page, your_turn_or_over, "your turn in the game, or its end") == "your turn":
        # Give the game up (a drop): the bot wins it, and your place still earns clover.
        page.get_by_test_id("leave").click()
        page.get_by_test_id("confirm-yes").click()
    card = page.get_by_test_id("levelup")
    expect(card).to_be_visible(timeout=30_000)
    expect(card).to_have_attribute("data-level", "3")
    expect(page.get_by_test_id("levelup-title")).to_have_text("Level 3 — you are now a Butterfly!")
    expect(page.get_by_test_id("levelup-gold")).to_have_text("+55 gold")
    screenshot(page, "levelup")

    page.get_by_test_id("levelup-profile").click()
    expect(page).to_have_url(re.compile(r"#/profile$"))
    expect(card).to_have_count(0)
    expect(page.get_by_test_id("profile-level")).to_have_attribute("data-level", "3")
    expect(page.get_by_test_id("profile-title")).to_have_text("Butterfly")
    gold = STARTING_GOLD + 5 + seeded + 55
    expect(page.get_by_test_id("profile-gold")).to_have_text(f"{gold:,} gold")
    assert page.js_errors == []  # type: ignore[attr-defined]
