"""The leagues in the browser: the league page (#/league) of a new player and of a player with
counted games (their line highlighted, the promotion zone marked by the Desert's rating rule, a
line short of the season's games marked so), the other leagues' rules and the Forest's "opens
when enough players reach it", last season's outcome after a rollover; the profile's achievements
card and invite card, and the invite link (#/join/<name>) that brings a friend to sign up.

League lines and an ended season are written to the server's database from here through the
ladder's and the rollover's own paths (:func:`rummyhall.economy.ladder.record_game` with a
``tier``, :func:`rummyhall.economy.rollover.roll_season`), in a thread of their own (Playwright's
sync API holds this thread's event loop). The rollover test settles a season for every league
player of the module's server, so it runs last. Screenshots: ``league``, ``league-new``,
``league-last``, ``profile-achievements``, ``join``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from ladder_kit import fits_the_phone, in_database, me, record_games, register
from playwright.sync_api import Page, expect

from conftest import DESKTOP, PHONE, SCREENSHOTS
from rummyhall.economy import leagues, rollover
from rummyhall.games.protocol import Standing

# ---- the league page -------------------------------------------------------------------------


def test_a_new_player_is_in_no_league_and_reads_every_leagues_rules(
    page: Page, sign_up: Callable[..., None], screenshot: Callable[..., Any]
) -> None:
    sign_up(page, "league-ann")
    page.get_by_test_id("nav-league").click()
    section = page.get_by_test_id("league")
    expect(section).to_have_attribute("data-league", "desert")
    season = leagues.season_of(int(time.time() * 1000))
    expect(page.get_by_test_id("league-season")).to_contain_text(f"Season {season} ends in")
    expect(page.get_by_test_id("league-countdown")).to_have_text(
        re.compile(r"^\d+ (d \d+ h|h \d+ min|min \d+ s|s)$")
    )
    yours = page.get_by_test_id("league-yours")
    expect(yours).to_have_attribute("data-league", "")
    expect(yours).to_contain_text("Not in a league yet")
    expect(page.get_by_test_id("league-last")).to_have_count(0)
    expect(page.get_by_test_id("league-tab-desert")).to_have_attribute("aria-current", "page")
    expect(page.locator("[data-testid^='league-tab-'][data-yours='true']")).to_have_count(0)
    expect(page.get_by_test_id("league-rule-up")).to_contain_text("From 6000 up")
    expect(page.get_by_test_id("league-rule-up")).to_contain_text("Tundra")
    expect(page.get_by_test_id("league-rule-down")).to_contain_text("Nobody goes down")
    expect(page.get_by_test_id("league-rule-games")).to_contain_text(
        "30 games this season to count"
    )
    expect(page.get_by_test_id("league-rule-prizes")).to_contain_text(
        "1st 30 gold, 2nd 20 gold, 3rd 10 gold"
    )
    expect(page.get_by_test_id("league-empty")).to_be_visible()
    expect(page.get_by_test_id("league-me")).to_be_hidden()  # not in this league: nothing pinned
    screenshot(page, "league-new")

    # the higher leagues: places, thresholds, and the Forest that opens later
    page.get_by_test_id("league-tab-tundra").click()
    expect(section).to_have_attribute("data-league", "tundra")
    expect(page.get_by_test_id("league-rule-up")).to_contain_text("From 6500 up")
    expect(page.get_by_test_id("league-rule-down")).to_contain_text("Below 4000 down")
    page.get_by_test_id("league-tab-savannah").click()
    expect(page.get_by_test_id("league-rule-up")).to_contain_text("Top 10 go up to Oasis")
    expect(page.get_by_test_id("league-rule-down")).to_contain_text("Last 10 go down to Steppe")
    expect(page.get_by_test_id("league-rule-prizes")).to_contain_text("1st 100 gold")
    page.get_by_test_id("league-tab-forest").click()
    expect(page.get_by_test_id("league-rule-up")).to_contain_text("nobody goes up")
    expect(page.get_by_test_id("league-closed")).to_have_text(
        "The Forest league opens when enough players reach it."
    )
    # a phone picks the league from a list
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_test_id("nav-more").click()  # the top bar's menu holds Leagues too
    expect(page.get_by_test_id("nav-league")).to_be_visible()
    page.keyboard.press("Escape")
    page.get_by_test_id("league-select").select_option("oasis")
    expect(section).to_have_attribute("data-league", "oasis")
    expect(page.get_by_test_id("league-rule-up")).to_contain_text("Top 5 go up to Forest")
    page.set_viewport_size({"width": 1366, "height": 768})

    # an unknown league: the server's refusal in words
    page.goto("/#/league/atlantis")
    expect(page.get_by_test_id("league-error")).to_have_text("There is no such league.")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_your_desert_line_is_highlighted_and_the_zones_follow_the_rules(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    server: Any,
    screenshot: Callable[..., Any],
) -> None:
    # ratings: top 8000 (30 firsts), you 6500 (32 seconds), mid 5000 (30 thirds), short 8000
    # but only 25 games, low 3500 (40 fourths): Desert promotes from 6000 with 30 games
    top, mid, short, low = (
        register(server.url, f"league-{name}") for name in ("top", "mid", "short", "low")
    )
    sign_up(page, "league-bea")
    mine = int(me(page, page_api)["id"])
    record_games(
        server.database_url,
        [(top, Standing(place=1))] * 30
        + [(mine, Standing(place=2))] * 32
        + [(mid, Standing(place=3))] * 30
        + [(short, Standing(place=1))] * 25
        + [(low, Standing(place=4))] * 40,
        tier="desert",
    )
    page.get_by_test_id("nav-league").click()
    expect(page.get_by_test_id("league-yours")).to_have_attribute("data-league", "desert")
    expect(page.get_by_test_id("league-yours")).to_contain_text("Desert league")
    expect(page.get_by_test_id("league-tab-desert")).to_have_attribute("data-yours", "true")
    rows = page.locator("[data-testid^='league-row-']")
    expect(rows).to_have_count(5)
    ranks = [int(r) for r in rows.evaluate_all("(rows) => rows.map((r) => r.dataset.rank)")]
    assert ranks == [1, 2, 3, 4, 5]

    own = page.get_by_test_id(f"league-row-{mine}")
    expect(own).to_have_attribute("data-me", "true")
    expect(own).to_have_class(re.compile(r"\bis-me\b"))
    expect(own.locator(".col-rating")).to_have_text("6500")
    expect(page.get_by_test_id("league-me")).to_be_hidden()  # on the table: not pinned
    zones = {
        top: "up",  # 8000 with 30 games
        mine: "up",  # 6500, at or above 6000
        short: "short",  # 8000, but 25 of 30 games
        mid: "",  # 5000: stays
        low: "",  # 3500: nobody drops out of the Desert
    }
    for account, zone in zones.items():
        expect(page.get_by_test_id(f"league-row-{account}")).to_have_attribute("data-zone", zone)
    expect(page.get_by_test_id(f"league-row-{top}")).to_have_attribute("data-rank", "1")
    expect(page.locator(".legend-up")).to_be_visible()
    expect(page.locator(".legend-down")).to_have_count(0)  # the Desert has no relegation
    screenshot(page, "league")
    assert fits_the_phone(page) == []

    # another league: your line is not pinned there, and your tab still says yours
    page.get_by_test_id("league-tab-tundra").click()
    expect(page.get_by_test_id("league-empty")).to_be_visible()
    expect(page.get_by_test_id("league-me")).to_be_hidden()
    expect(page.get_by_test_id("league-yours")).to_contain_text("See your league")
    assert page.js_errors == []  # type: ignore[attr-defined]


# ---- the profile: achievements and invitations --------------------------------------------


def test_the_profile_lists_achievements_earned_with_their_gold(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    server: Any,
    screenshot: Callable[..., Any],
) -> None:
    sign_up(page, "league-cy")
    page.get_by_test_id("nav-profile").click()
    card = page.get_by_test_id("achievements")
    expect(card).to_have_attribute("data-earned", "0")
    expect(page.get_by_test_id("achievement-first_game")).to_have_attribute("data-earned", "false")

    mine = int(me(page, page_api)["id"])
    record_games(server.database_url, [(mine, Standing(place=1))], tier=None)
    page.reload()
    expect(card).to_have_attribute("data-earned", "2")
    for key in ("first_game", "first_win"):
        expect(page.get_by_test_id(f"achievement-{key}")).to_have_attribute("data-earned", "true")
        expect(page.get_by_test_id(f"achievement-date-{key}")).to_contain_text("Earned")
    expect(page.get_by_test_id("achievement-first_game")).to_contain_text("First game")
    expect(page.get_by_test_id("achievement-gold-first_game")).to_have_text("10 gold")
    expect(page.get_by_test_id("achievement-gold-first_win")).to_have_text("20 gold")
    expect(page.get_by_test_id("achievement-first_rummy")).to_have_attribute("data-earned", "false")
    expect(page.get_by_test_id("achievement-date-first_rummy")).to_have_count(0)
    expect(page.get_by_test_id("friend-invited")).to_have_text("0 invited, paid for 0")
    card.scroll_into_view_if_needed()
    screenshot(page, "profile-achievements")
    page.set_viewport_size(PHONE)  # the phone's picture of the card itself, not of the page's top
    card.scroll_into_view_if_needed()
    page.evaluate("(y) => window.scrollBy(0, y)", card.bounding_box()["y"] - 60)
    page.wait_for_timeout(200)
    page.screenshot(path=str(SCREENSHOTS / "profile-achievements-phone.png"))
    page.set_viewport_size(DESKTOP)
    assert fits_the_phone(page) == []
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_friend_signs_up_through_the_invite_link(
    page: Page,
    new_page: Callable[..., Page],
    sign_up: Callable[..., None],
    screenshot: Callable[..., Any],
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_up(page, "league-dora")
    page.get_by_test_id("nav-profile").click()
    field = page.get_by_test_id("friend-link")
    expect(field).to_have_value(re.compile(r"/#/join/league-dora$"))
    link = field.input_value()
    page.get_by_test_id("friend-copy").click()
    expect(page.get_by_test_id("toast").last).to_contain_text("copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    expect(page.get_by_test_id("friend-invited")).to_have_attribute("data-invited", "0")

    # a visitor opens the link: the sign-in screen says who invited them; Sign up names them
    friend = new_page()
    friend.goto(link)
    note = friend.get_by_test_id("signin-invited")
    expect(note).to_contain_text("Invited by league-dora")
    expect(note).to_have_attribute("data-name", "league-dora")
    screenshot(friend, "join")
    friend.get_by_test_id("signin-name").fill("league-eli")
    friend.get_by_test_id("signin-password").fill("correct horse 1")
    friend.get_by_test_id("signin-password").press("Enter")  # a join link's form signs up
    friend.get_by_test_id("lobby").wait_for()
    expect(friend).to_have_url(re.compile(r"/#/$"))
    # signed in, the link just leads to the lobby
    friend.goto(link)
    friend.get_by_test_id("lobby").wait_for()
    expect(friend).to_have_url(re.compile(r"/#/$"))

    page.reload()
    expect(page.get_by_test_id("friend-invited")).to_have_attribute("data-invited", "1")
    expect(page.get_by_test_id("friend-invited")).to_contain_text("1 invited, paid for 0")

    # a link that names nobody: the server's refusal in words, and no account
    stranger = new_page()
    stranger.goto("/#/join/nobody-at-all")
    expect(stranger.get_by_test_id("signin-invited")).to_contain_text("nobody-at-all")
    stranger.get_by_test_id("signin-name").fill("league-fay")
    stranger.get_by_test_id("signin-password").fill("correct horse 1")
    stranger.get_by_test_id("signin-register").click()
    expect(stranger.get_by_test_id("signin-error")).to_contain_text("That player cannot be found.")
    expect(stranger.get_by_test_id("signin")).to_be_visible()
    for visitor in (page, friend, stranger):
        assert visitor.js_errors == []  # type: ignore[attr-defined]


# ---- last season (runs last: the rollover settles every league player of the server) ---------


def test_last_seasons_promotion_is_told_at_the_top(
    page: Page,
    sign_up: Callable[..., None],
    page_api: Callable[..., Any],
    server: Any,
    screenshot: Callable[..., Any],
) -> None:
    sign_up(page, "league-gus")
    mine = int(me(page, page_api)["id"])
    # two seasons ago (the server settles the last one itself when it starts): 30 firsts in the
    # Desert, rating 8000, and the clover of 30 games opens the Tundra room (level 6)
    past = leagues.season_of(int(time.time() * 1000)) - 2
    at = leagues.season_start_ms(past) + 3_600_000
    record_games(server.database_url, [(mine, Standing(place=1))] * 30, tier="desert", at_ms=at)
    settled: list[Any] = []
    in_database(server.database_url, lambda conn: settled.append(rollover.roll_season(conn, past)))
    assert settled[0] is not None

    page.get_by_test_id("nav-league").click()
    last = page.get_by_test_id("league-last")
    expect(last).to_have_attribute("data-outcome", "up")
    expect(last).to_have_attribute("data-season", str(past))
    expect(last.locator(".league-last-text")).to_have_text(
        f"Season {past}: 1st in Desert, promoted to Tundra, +30 gold"
    )
    expect(page.get_by_test_id("league-yours")).to_have_attribute("data-league", "tundra")
    expect(page.get_by_test_id("league")).to_have_attribute("data-league", "tundra")
    expect(page.get_by_test_id("league-tab-tundra")).to_have_attribute("data-yours", "true")
    expect(page.get_by_test_id("league-me")).to_contain_text("0 of 20 counted games")
    screenshot(page, "league-last")

    # the Promoted achievement came with it
    page.get_by_test_id("nav-profile").click()
    expect(page.get_by_test_id("achievement-promoted")).to_have_attribute("data-earned", "true")
    assert page.js_errors == []  # type: ignore[attr-defined]
