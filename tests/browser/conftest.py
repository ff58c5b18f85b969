"""Browser tests: the web client in headless Chromium (Playwright for Python, sync API), against a
real ``rummyhall serve`` process with fast bots.

Fixtures:
- ``server``: a server process for the test module (its own data folder and loopback port);
  ``server.url``, ``server.stop()`` / ``server.start()`` (same port and data, for reconnect tests).
  A module changes the server's options by overriding the ``server_args`` fixture (extra
  ``rummyhall serve`` arguments, e.g. ``["--bot-think-ms", "300"]``).
- ``browser``: one headless Chromium (/usr/bin/chromium) for the session.
- ``context`` / ``page``: a fresh browser context (cookies) per test at the laptop size, with
  ``base_url`` set to the server; ``new_page()`` opens another page in another context (a second
  player).
- ``screenshot(page, name)``: writes ``<name>-desktop.png`` (1366x768) and ``<name>-phone.png``
  (390x844) under $RUMMYHALL_SCREENSHOTS or build/screenshots/.
Helper fixtures (each returns a function; request them by name, no imports needed):
``sign_up(page, name, password=...)``, ``play_as_guest(page)``, ``page_api(page, method, path,
body=None) -> {"status", "body"}`` (the page's own fetch, with its session cookie),
``wallet(page, currency="chips") -> int`` (the chips /api/me reports: real chips, or
``"practice"`` chips, which are a guest's only ones).
Helpers the game tests import from here: ``wait_until(page, check, what)`` (a state of the page,
never a time), ``settled(page)`` (no card of the hand still sliding) and
``layout_problems(page)`` (a hand that is not readable and touchable on a phone).

Without Chromium or Playwright the tests are skipped, except under CI=true where they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server_kit import ServerProcess, free_port

CHROMIUM = os.environ.get("RUMMYHALL_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("RUMMYHALL_SCREENSHOTS") or ROOT / "build" / "screenshots")
TIMEOUT_MS = 15_000

try:
    from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
except ImportError:  # pragma: no cover - the test extras install it
    sync_playwright = None  # type: ignore[assignment]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests must run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Per module, not per session: the sync API keeps an event loop running in the main thread
    # while it is open, and the asyncio tests of the other modules need that thread's loop free.
    if sync_playwright is None:
        _unavailable("the playwright package is not installed")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def server_args() -> list[str]:
    """Extra ``rummyhall serve`` arguments; override in a module to change them."""
    return ["--bot-wait", "0", "--bot-think-ms", "50"]


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, server_args: list[str]
) -> Iterator[BrowserServer]:
    data = tmp_path_factory.mktemp("browser-server")
    process = BrowserServer(data, f"sqlite+aiosqlite:///{data / 'rummyhall.sqlite3'}", free_port())
    process.extra = list(server_args)
    process.start()
    try:
        yield process
    finally:
        process.stop()


class BrowserServer(ServerProcess):
    """A ServerProcess that remembers its extra arguments across stop() and start()."""

    extra: list[str]

    def start(self, *extra: str) -> None:
        super().start(*(extra or self.extra))


@pytest.fixture
def context(browser: Browser, server: BrowserServer) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport=DESKTOP, base_url=server.url)
    ctx.set_default_timeout(TIMEOUT_MS)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    page = context.new_page()
    _watch_console(page)
    return page


@pytest.fixture
def new_page(browser: Browser, server: BrowserServer) -> Iterator[Callable[..., Page]]:
    """Opens pages in new browser contexts (other players); closed at the end of the test."""
    contexts: list[BrowserContext] = []

    def make(viewport: dict[str, int] | None = None) -> Page:
        ctx = browser.new_context(viewport=viewport or DESKTOP, base_url=server.url)
        ctx.set_default_timeout(TIMEOUT_MS)
        contexts.append(ctx)
        page = ctx.new_page()
        _watch_console(page)
        return page

    try:
        yield make
    finally:
        for ctx in contexts:
            ctx.close()


def _watch_console(page: Page) -> None:
    """JavaScript errors in the page are collected in ``page.js_errors`` (tests may assert none)."""
    errors: list[str] = []
    page.js_errors = errors  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: errors.append(str(error)))


@pytest.fixture
def screenshot() -> Callable[[Page, str], list[Path]]:
    def shoot(page: Page, name: str, *, settle_ms: int = 350) -> list[Path]:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        before = page.viewport_size or DESKTOP
        paths = []
        for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            page.wait_for_timeout(settle_ms)
            path = SCREENSHOTS / f"{name}-{label}.png"
            page.screenshot(path=str(path))
            paths.append(path)
        page.set_viewport_size(before)
        return paths

    return shoot


# ---- helpers --------------------------------------------------------------------------------


def _page_api(page: Page, method: str, path: str, body: Any = None) -> Any:
    """Calls the HTTP API with the page's own session; returns {"status", "body"}."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const init = {method, headers: {}, credentials: 'same-origin'};
            if (body !== null) { init.headers['Content-Type'] = 'application/json';
                                 init.body = JSON.stringify(body); }
            const response = await fetch(path, init);
            const text = await response.text();
            return {status: response.status, body: text ? JSON.parse(text) : null};
        }""",
        [method, path, body],
    )


def _sign_up(page: Page, name: str, password: str = "correct horse 1") -> None:
    page.goto("/")
    page.get_by_test_id("signin-name").fill(name)
    page.get_by_test_id("signin-password").fill(password)
    page.get_by_test_id("signin-register").click()
    page.get_by_test_id("lobby").wait_for()


def _play_as_guest(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("signin-guest").click()
    page.get_by_test_id("lobby").wait_for()


def _wallet(page: Page, currency: str = "chips") -> int:
    answer = _page_api(page, "GET", "/api/me")
    assert answer["status"] == 200, json.dumps(answer)
    return int(answer["body"][currency])


@pytest.fixture
def page_api() -> Callable[..., Any]:
    return _page_api


@pytest.fixture
def sign_up() -> Callable[..., None]:
    return _sign_up


@pytest.fixture
def play_as_guest() -> Callable[[Page], None]:
    return _play_as_guest


@pytest.fixture
def wallet() -> Callable[..., int]:
    return _wallet


# --- what the game tests read from a page (import them from here) ---------------------------


def settled(page: Page) -> None:
    """Wait until no card of the hand is still sliding to its new place."""
    page.wait_for_function(
        """() => !document.getAnimations().some(a => a.playState === 'running'
            && a.effect && a.effect.target && a.effect.target.closest
            && a.effect.target.closest('[data-testid="hand"]'))"""
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
