"""The browser client's files without a browser: every module they import exists, and every
error code of the protocol has plain words for people."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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


def test_each_game_view_brings_its_own_how_to_play() -> None:
    """The guides live with the games (registry -> module -> howToPlay); the shell's dialog and
    the lobby's button name no game, so a new game needs no change there."""
    registry = (WEB / "js" / "games" / "registry.js").read_text(encoding="utf-8")
    modules = re.findall(r"(\w+): \(\) => import\('\./(\w+)\.js'\)", registry)
    assert modules
    for game, module in modules:
        text = (WEB / "js" / "games" / f"{module}.js").read_text(encoding="utf-8")
        assert re.search(r"export \{ howToPlay \}|export const howToPlay", text), game
    shell = (WEB / "js" / "howto.js").read_text(encoding="utf-8")
    assert not any(game in shell for game, _ in modules)
