"""The layers of the whole package (DESIGN.md, "Layers"; docs/architecture.md): every module of
``src/rummyhall`` is read with :mod:`ast`, every import of another module of the package is an
edge (at module level, inside a function, or only under ``TYPE_CHECKING``: each is told apart),
and

* no import points up a layer;
* there is no import cycle between modules (strongly connected components of the graph);

except the edges listed in :data:`EXCEPTIONS`, each with why, and each still present (an
exception that no longer exists must be removed, so the list cannot go stale).

The layers, top to bottom, as docs/architecture.md draws them: server and cli.py (and the Python
client, which imports nothing of the package); sim.py and terminal/; the catalog; economy; store;
bots; games; melds; cards, shuffle (and the package's root). A game's folder spreads over the
layers by its modules' names, as tests/test_catalog.py maps them (``bot.py`` in bots,
``rooms.py`` in economy, ``plugin.py`` in the catalog, ``tally.py`` in sim, ``terminal.py`` in
the terminal layer, any other module in games).

``python tests/test_layers.py`` prints the graph's upward edges and cycles.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import rummyhall
from test_catalog import _LAYER_OF

SRC = Path(rummyhall.__file__).resolve().parent

LAYERS: tuple[tuple[str, ...], ...] = (
    ("rummyhall.server", "rummyhall.cli", "rummyhall.client"),
    ("rummyhall.sim", "rummyhall.terminal"),
    ("rummyhall.catalog",),
    ("rummyhall.economy",),
    ("rummyhall.store",),
    ("rummyhall.bots",),
    ("rummyhall.games",),
    ("rummyhall.melds",),
    ("rummyhall.cards", "rummyhall.shuffle", "rummyhall"),
)
"""Top to bottom; a module is in the layer of the longest prefix that names it."""

_GAME_LAYER: dict[str, str] = {
    "bots": "rummyhall.bots",
    "economy": "rummyhall.economy",
    "catalog": "rummyhall.catalog",
    "sim": "rummyhall.sim",
    "ui": "rummyhall.terminal",
    "games": "rummyhall.games",
}
"""test_catalog's layer names of a game folder's modules -> a prefix of :data:`LAYERS`."""

EXCEPTIONS: dict[tuple[str, str], str] = {
    ("rummyhall.games.protocol", "rummyhall.catalog"): (
        "game_class(name) turns a record's game name into an engine for replay; names are looked "
        "up in the catalog. Imported inside the function, when called (docs/architecture.md)."
    ),
    ("rummyhall.catalog", "rummyhall.sim"): (
        "type only (TYPE_CHECKING): GamePlugin.tally_class() says it returns a sim.Tally; the "
        "catalog resolves the tally's import string when asked and never imports the simulator."
    ),
}
"""(importer, imported) -> why this edge may point up a layer or close a cycle."""


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    line: int
    where: str
    """``module`` (runs on import), ``function`` (runs when called) or ``typing`` (only under
    ``TYPE_CHECKING``, never at run time)."""

    def __str__(self) -> str:
        return f"{self.source}:{self.line} -> {self.target} ({self.where})"


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _owner(name: str, known: dict[str, Path]) -> str:
    """The module of the package that ``name`` (a module, or a name inside one) is in."""
    while name not in known:
        name = name.rpartition(".")[0]
    return name


def edges(known: dict[str, Path] | None = None) -> Iterator[Edge]:
    """Every import of a module of the package by another one."""
    known = known or modules()
    for source, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where: dict[int, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                where.update((id(inner), "function") for inner in ast.walk(node))
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                where.update((id(inner), "typing") for inner in ast.walk(node))
        package = source if path.name == "__init__.py" else source.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package
                    for _ in range(node.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                if target == "rummyhall" or target.startswith("rummyhall."):
                    owner = _owner(target, known)
                    if owner != source:
                        yield Edge(source, owner, node.lineno, where.get(id(node), "module"))


def layer(module: str) -> int:
    """The module's layer: 0 at the top."""
    parts = module.split(".")
    if len(parts) >= 4 and parts[1] == "games" and (SRC / "games" / parts[2]).is_dir():
        name = _LAYER_OF.get(parts[3], ("games", ()))[0]
        module = _GAME_LAYER[name]
    elif len(parts) == 3 and parts[1] == "games" and (SRC / "games" / parts[2]).is_dir():
        module = "rummyhall.games"  # a game folder's __init__.py
    best, rank = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS"
    return rank


def upward(all_edges: list[Edge]) -> list[Edge]:
    return [edge for edge in all_edges if layer(edge.target) < layer(edge.source)]


def cycles(all_edges: list[Edge]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for edge in all_edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _checked() -> list[Edge]:
    return [edge for edge in edges() if (edge.source, edge.target) not in EXCEPTIONS]


# --- the tests ---------------------------------------------------------------------------------


def test_every_module_is_in_a_layer() -> None:
    known = modules()
    assert len(known) > 50 and "rummyhall.games.protocol" in known
    for module in known:
        layer(module)
    assert layer("rummyhall.games.patti.tally") == layer("rummyhall.sim")
    assert layer("rummyhall.games.patti.engine") == layer("rummyhall.games.protocol")
    assert layer("rummyhall.games.patti.rooms") == layer("rummyhall.economy.rooms")
    assert layer("rummyhall.server.table") < layer("rummyhall.catalog") < layer("rummyhall.cards")


def test_the_edges_are_read_at_module_level_in_functions_and_for_typing() -> None:
    found = {(edge.source, edge.target): edge.where for edge in edges()}
    assert found[("rummyhall.sim", "rummyhall.catalog")] == "module"
    assert found[("rummyhall.games.protocol", "rummyhall.catalog")] == "function"
    assert found[("rummyhall.catalog", "rummyhall.sim")] == "typing"
    assert found[("rummyhall.melds.solver", "rummyhall.melds.kinds")] == "module"


def test_no_import_points_up_a_layer() -> None:
    bad = upward(_checked())
    assert not bad, "imports pointing up a layer:\n" + "\n".join(map(str, bad))


def test_no_import_cycle() -> None:
    found = cycles(_checked())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_every_exception_is_still_needed() -> None:
    """An exception that is gone from the code (or no longer points up nor closes a cycle) is
    removed from the list."""
    all_edges = list(edges())
    present = {(edge.source, edge.target) for edge in all_edges}
    assert set(EXCEPTIONS) <= present, set(EXCEPTIONS) - present
    cyclic = {module for component in cycles(all_edges) for module in component}
    for source, target in EXCEPTIONS:
        assert layer(target) < layer(source) or {source, target} <= cyclic, (source, target)


def test_the_checks_can_fail() -> None:
    """The checks on a graph with bad edges: an engine importing the server (up a layer), and
    the cards importing the shuffle, which imports them (a cycle within a layer)."""
    bad = [
        *_checked(),
        Edge("rummyhall.games.patti.engine", "rummyhall.server.table", 1, "module"),
        Edge("rummyhall.cards", "rummyhall.shuffle", 1, "function"),
    ]
    assert [str(edge) for edge in upward(bad)] == [
        "rummyhall.games.patti.engine:1 -> rummyhall.server.table (module)"
    ]
    assert cycles(bad) == [["rummyhall.cards", "rummyhall.shuffle"]]


if __name__ == "__main__":
    all_edges = list(edges())
    for edge in upward(all_edges):
        print("up:", edge, "(allowed)" if (edge.source, edge.target) in EXCEPTIONS else "")
    for component in cycles(all_edges):
        print("cycle:", " <-> ".join(component))
