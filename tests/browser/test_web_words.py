"""The words the client uses: a signed-out first visit leaves the console clean."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import ConsoleMessage, Page, expect


def test_first_visit_signed_out_logs_nothing(page: Page, screenshot: Callable[..., Any]) -> None:
    console: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            console.append(f"{message.type}: {message.text} ({message.location})")

    page.on("console", heard)
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto("/", wait_until="networkidle")
    expect(page.get_by_test_id("signin")).to_be_visible()
    # And a reload of a table's address while signed out: still the sign-in screen, still quiet.
    page.goto("/#/table/1", wait_until="networkidle")
    page.reload(wait_until="networkidle")
    expect(page.get_by_test_id("signin")).to_be_visible()
    assert console == []
    assert failed == []
    assert page.js_errors == []  # type: ignore[attr-defined]
