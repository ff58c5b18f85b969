"""The browser client's files without a browser: every module they import exists, every error
code of the protocol has plain words for people, and the games come from the catalog: each game's
view module is where GET /api/games says and is served there, and the shell names no game."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from rummyhall import catalog
from server_kit import fast_settings, running

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "rummyhall" / "web"
PROTOCOL = ROOT / "docs" / "protocol.md"


def _scripts() -> list[Path]:
    return sorted(WEB.rglob("*.js"))


def test_every_import_and_page_reference_resolves() -> None:
    missing = []
    for script in _scripts():
        text = script.read_text(encoding="utf-8")
        for target in re.findall(r"""(?:from|import)\s*\(?\s*['"](\.{1,2}/[^'"]+)['"]""", text):
            if not (script.parent / target).resolve().is_file():
                missing.append(f"{script.relative_to(WEB)} -> {target}")
    page = (WEB / "index.html").read_text(encoding="utf-8")
    for target in re.findall(r"""(?:src|href)="/([^"]+\.(?:js|css|svg))\"""", page):
        if not (WEB / target).is_file():
            missing.append(f"index.html -> {target}")
    assert _scripts() and missing == []


def test_every_error_code_has_plain_words() -> None:
    """docs/protocol.md's table of error codes is the contract; errors.js must explain each."""
    table = PROTOCOL.read_text(encoding="utf-8").split("| code | where | meaning |", 1)[1]
    table = table.split("\n\n", 1)[0]
    codes = set()
    for row in table.splitlines()[2:]:
        cells = row.split("|")
        first, meaning = cells[1], cells[3]
        codes.update(re.findall(r"`([a-z_]+)`", first if "`" in first else meaning))
    words = (WEB / "js" / "errors.js").read_text(encoding="utf-8")
    explained = set(re.findall(r"^\s+([a-z_]+): '", words, flags=re.MULTILINE))
    assert len(codes) > 30
    assert codes - explained == set()


def _views() -> dict[str, Path]:
    """Every game's view module file, by game (the catalog's web_view)."""
    return {plugin.name: WEB / plugin.web_view for plugin in catalog.games()}


def test_each_game_view_brings_its_own_how_to_play_and_deal_order() -> None:
    """The guides and the deal orders live with the games (/api/games -> module -> howToPlay,
    dealtCards); the shell's dialog, the lobby and the fair check name no game."""
    views = _views()
    assert views
    for game, path in views.items():
        assert path.is_file(), f"{game}: no view module at {path.relative_to(WEB)}"
        text = path.read_text(encoding="utf-8")
        assert re.search(r"export function createView\(", text), game
        for name in ("howToPlay", "dealtCards"):
            assert re.search(rf"export \{{[^}}]*\b{name}\b[^}}]*\}}|export const {name}\b", text), (
                f"{game} exports no {name}"
            )


def test_no_shell_file_names_a_game() -> None:
    """app.js, table.js, history.js, fair.js, howto.js, names.js, index.html, the shared CSS:
    none says a game's name, title or short name; they find the games through the registry."""
    plugins = catalog.games()
    words = {plugin.name for plugin in plugins} | {plugin.title for plugin in plugins}
    words |= {plugin.label for plugin in plugins}
    own = {WEB / plugin.web_style for plugin in plugins} | set(_views().values())
    folders = {WEB / "js" / "games" / plugin.name for plugin in plugins}
    named = []
    for path in sorted(WEB.rglob("*")):
        if path.suffix not in {".js", ".css", ".html"} or path in own:
            continue
        if any(folder in path.parents for folder in folders):
            continue
        text = path.read_text(encoding="utf-8").lower()
        named += [f"{path.relative_to(WEB)}: {w}" for w in sorted(words) if w.lower() in text]
    assert named == []


async def test_api_games_gives_every_game_and_its_view_is_served(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'test.db'}", bots=False)
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        answer = await http.get("/api/games")  # public: no session
        assert answer.status_code == 200
        assert answer.headers["cache-control"] == "public, max-age=300"
        games = answer.json()["games"]
        assert [game["name"] for game in games] == catalog.names()
        for game, plugin in zip(games, catalog.games(), strict=True):
            assert game == {
                "name": plugin.name,
                "title": plugin.title,
                "label": plugin.label,
                "blurb": plugin.blurb,
                "view": f"/js/games/{plugin.name}.js",
                "style": f"/css/{plugin.name}.css",
                "order": plugin.order,
            }
            assert game["blurb"] and game["label"]
            for url in (game["view"], game["style"]):
                served = await http.get(url)
                assert served.status_code == 200, url
                assert served.content == (WEB / url.lstrip("/")).read_bytes()
            assert "javascript" in (await http.get(game["view"])).headers["content-type"]
