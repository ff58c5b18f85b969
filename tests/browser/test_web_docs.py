"""The API's documentation page (/docs) in a browser with no way out to the internet: Swagger UI
comes from the room itself (the swagger-ui-bundle package), so it renders the API's operations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Page, Route, expect


def test_docs_render_offline(page: Page, server: Any, screenshot: Callable[..., Any]) -> None:
    origin = urlsplit(server.url).netloc
    outside: list[str] = []

    def only_the_server(route: Route) -> None:
        # Anything not for the room's own origin is cut, as on a machine without internet.
        if urlsplit(route.request.url).netloc == origin:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", only_the_server)
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))

    page.goto("/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Rummy Hall")
    # the operations are listed: the lobby's rooms among them
    expect(page.locator(".opblock-summary-path[data-path='/api/rooms']")).to_be_visible()
    assert page.locator(".opblock").count() > 10
    expect(page.locator(".swagger-ui .errors-wrapper")).to_have_count(0)
    screenshot(page, "docs-offline")
    assert outside == []
    assert page.js_errors == []  # type: ignore[attr-defined]
