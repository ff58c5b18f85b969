"""The compiled build (setup.py, rummyhall.native) against its pure sources: the switch, the list
of compiled modules, and whole games.

setup.py compiles the meld solver's hot modules and, for the speed of every action, the rummy
engine and bot with the protocol, the cards and the meld checks they call (docs/solver.md, "The
compiled build"). The pure sources stay the reference: ``RUMMYHALL_PURE=1`` loads them instead,
in a subprocess here (an extension module beside its ``.py`` wins at import otherwise). Every
game whose code is compiled plays fixed-seed simulations in both, and the full game records (the
bots' every action, with its seat and time, each deal's deck, the results) and the reports must be
the same. tests/melds/test_melds_native.py compares the solver's answers hand by hand. Under
CI=true the build must be compiled; elsewhere a pure build (no C compiler) still runs every
comparison, pure against pure.

    python tests/test_native.py   # the records of this interpreter's build, as JSON
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from rummyhall import native, sim

ROOT = Path(__file__).resolve().parents[1]

# Fixed-seed simulations of every game whose code is compiled (the rummy engine and bot: 13-card
# Indian Rummy, both profiles, points and pools, and Marriage; the protocol and the cards: every
# game). Checked runs build every seat's view and census after every action, compiled too.
RUNS: dict[str, dict[str, Any]] = {
    "indian13 classic points": {"game": "indian13", "deals": 30, "seed": 5, "checks": True},
    "indian13 classic points, 2 players": {"game": "indian13", "players": 2, "deals": 30},
    "indian13 vengala pool101": {
        "game": "indian13",
        "profile": "vengala",
        "mode": "pool101",
        "players": 3,
        "deals": 8,
        "seed": 3,
    },
    "indian13 classic pool201, 6 players": {
        "game": "indian13",
        "mode": "pool201",
        "players": 6,
        "deals": 8,
        "seed": 2,
    },
    "marriage21": {"game": "marriage21", "deals": 15, "seed": 1, "checks": True},
    "rummy51": {"game": "rummy51", "deals": 6, "seed": 1},
    "patti": {"game": "patti", "deals": 30, "seed": 1, "checks": True},
}


@contextmanager
def recording() -> Iterator[list[Any]]:
    """Every table's record, as its game ends (simulate keeps no tables)."""
    records: list[Any] = []
    run = sim.Runner.run

    def recorded(self: sim.Runner, *args: Any, **kwargs: Any) -> None:
        try:
            run(self, *args, **kwargs)
        finally:
            records.append(self.game.record())

    sim.Runner.run = recorded  # type: ignore[method-assign]
    try:
        yield records
    finally:
        sim.Runner.run = run  # type: ignore[method-assign]


def results() -> dict[str, Any]:
    """By run: the records of its tables and its report (times left out), as JSON."""
    out: dict[str, Any] = {}
    for name, options in RUNS.items():
        with recording() as records:
            report = sim.simulate(**{"checks": False, "seed": 1, **options})
        figures = {
            key: value
            for key, value in report.to_json().items()
            if key != "seconds" and not key.endswith("_per_second")
        }
        out[name] = {"records": records, "report": figures}
    # JSON, as the subprocess's answer is read: tuples as lists, keys as text.
    data: dict[str, Any] = json.loads(json.dumps(out, default=str))
    return data


def run_pure(code: str) -> str:
    env = {**os.environ, native.PURE_SWITCH: "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_pure_switch_loads_the_sources() -> None:
    out = run_pure(
        "import importlib, json\n"
        "from rummyhall import native\n"
        "files = [importlib.import_module(m).__file__ for m in native.modules()]\n"
        "print(json.dumps([native.compiled(), files]))\n"
    )
    compiled, files = json.loads(out)
    assert compiled is False
    assert [Path(f).suffix for f in files] == [".py"] * len(native.modules())


def test_the_build_compiles_the_cores_modules_and_those_the_games_folders_name() -> None:
    """setup.py and the Makefile run native.py as a file for its list: the core's modules, then
    what each folder of games/ names in its __init__.py (a game is a plug-in: the core names no
    game's module)."""
    printed = subprocess.run(
        [sys.executable, str(ROOT / "src" / "rummyhall" / "native.py")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()
    names = [p.removeprefix("src/").removesuffix(".py").replace("/", ".") for p in printed]
    assert tuple(names) == native.modules()
    assert all((ROOT / path).is_file() for path in printed)
    assert native.modules()[: len(native.CORE)] == native.CORE
    games = native.modules()[len(native.CORE) :]
    assert "rummyhall.games.patti.engine" in games
    assert "rummyhall.games.rummy.engine" in games
    assert all(name.startswith("rummyhall.games.") for name in games)
    # Each folder's list is its package's COMPILED, the same that native.py read from its source.
    for name in {name.rpartition(".")[0] for name in games}:
        package = importlib.import_module(name)
        stems = tuple(n.rpartition(".")[2] for n in games if n.rpartition(".")[0] == name)
        assert stems == package.COMPILED


def test_a_new_games_folder_adds_what_it_names_and_a_wrong_list_is_refused(tmp_path: Path) -> None:
    package = tmp_path / "rummyhall"
    (package / "games" / "newgame").mkdir(parents=True)
    (package / "games" / "plain").mkdir()
    (package / "games" / "plain" / "__init__.py").write_text('"""No compiled module."""\n')
    init = package / "games" / "newgame" / "__init__.py"
    (init.parent / "engine.py").write_text("")
    init.write_text('"""A game."""\n\nCOMPILED: tuple[str, ...] = ("engine",)\n')
    assert native.modules(package) == (*native.CORE, "rummyhall.games.newgame.engine")
    assert native.sources(package)[-1] == init.parent / "engine.py"
    for wrong, said in [
        ('COMPILED = ("engine", "hands")\n', "no such module: hands"),
        ('COMPILED = "engine"\n', "must be a tuple"),
        ("COMPILED = tuple(['engine'])\n", "malformed"),
    ]:
        init.write_text(wrong)
        with pytest.raises(ValueError, match=said):
            native.folder_modules(init)


def test_the_build_is_compiled_in_ci() -> None:
    """CI builds on a machine with a C compiler (.ci/run installs one): the compiled modules
    must be what the tests exercise there. A pure build elsewhere is allowed, and said."""
    if os.environ.get("CI") == "true":
        assert native.compiled(), "CI must test the compiled build (see setup.py's messages)"
    elif native.pure_requested():
        pytest.skip(f"{native.PURE_SWITCH}=1: this process runs the pure modules")
    elif not native.compiled():
        pytest.skip("this build is pure Python (no compiler when it was installed)")


def test_the_compiled_modules_are_not_older_than_their_sources() -> None:
    """An editable install compiles in place; a source edited since is not what runs until the
    build is redone (make does it: the .venv stamp depends on these sources)."""
    for name in native.modules():
        module = importlib.import_module(name)
        if not native.is_compiled(module):
            continue
        assert module.__file__ is not None
        built = Path(module.__file__)
        source = built.with_name(name.rpartition(".")[2] + ".py")
        if source.exists():
            assert built.stat().st_mtime >= source.stat().st_mtime, (
                f"{built.name} is older than {source.name}: rebuild (make .venv/.installed)"
            )


@functools.cache
def both_builds() -> tuple[dict[str, Any], dict[str, Any]]:
    """The records of this process's build and of the pure modules (one subprocess for all)."""
    pure = json.loads(
        run_pure(f"import runpy; runpy.run_path({str(Path(__file__))!r}, None, '__main__')")
    )
    return results(), pure


def actions(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(entry["seat"], entry["action"], entry["at"]) for entry in record["actions"]]


@pytest.mark.parametrize("run", list(RUNS))
def test_compiled_and_pure_play_the_same_games(run: str) -> None:
    ours, pure = (build[run] for build in both_builds())
    assert ours["records"], "the run played no table"
    assert len(ours["records"]) == len(pure["records"])
    for number, (mine, theirs) in enumerate(zip(ours["records"], pure["records"], strict=True)):
        # The bots' actions first, for a readable difference; then everything else.
        assert actions(mine) == actions(theirs), f"table {number + 1}: the actions differ"
        assert mine == theirs, f"table {number + 1}: the records differ"
    assert ours["report"] == pure["report"]


if __name__ == "__main__":
    print(json.dumps(results()))
