"""The rummy bots' decisions, recorded: every action the bots of a few seeded simulations sent,
in order, compared with tests/golden/bot-decisions.txt.

The bots are deterministic and the solver's choice among equally good arrangements decides
some of their moves (which card a hand throws, an open card taken or not, the groups shown), so
a change meant to make the bots, the solver or the engine faster must leave every action as it
was. The shortcuts test compares two modes of the same code; this one compares the code with
what it did when the file was written. The file is data, checked in; write it again only for a
change meant to alter the bots' play, after checking the difference::

    .venv/bin/python tests/games/test_bot_decisions.py --write
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from rummyhall import catalog
from rummyhall.bots import Bot
from rummyhall.games.rummy import bot as rummy_bot
from rummyhall.sim import simulate

GOLDEN = Path(__file__).parents[1] / "golden" / "bot-decisions.txt"

RUNS: dict[str, dict[str, Any]] = {
    "indian13 classic points": {
        "game": "indian13",
        "profile": "classic",
        "players": 4,
        "deals": 60,
        "seed": 11,
    },
    "indian13 classic pool101": {
        "game": "indian13",
        "profile": "classic",
        "players": 3,
        "deals": 12,
        "seed": 12,
        "mode": "pool101",
    },
    "indian13 vengala points": {
        "game": "indian13",
        "profile": "vengala",
        "players": 3,
        "deals": 30,
        "seed": 13,
    },
    "marriage21 points": {"game": "marriage21", "players": 4, "deals": 5, "seed": 14},
}
"""The simulations, by name: every deal of each is played by the game's own bots."""


def sent(run: dict[str, Any]) -> list[str]:
    """Every action the bots of ``run`` sent, as ``seat action`` (None: nothing to send)."""
    rummy_bot._MEMO.clear()  # a fresh memo, as in a new process: the same calls reach the solver
    actions: list[str] = []
    make = catalog.get(run["game"]).bot

    class Recorded:
        def __init__(self, seat: int, seed: int) -> None:
            self.seat = seat
            self.bot = make(seed)

        def act(self, view: Any) -> str | None:
            action: str | None = self.bot.act(view)
            actions.append(f"{self.seat} {action}")
            return action

    def bots(seat: int, seed: int) -> Bot:
        return Recorded(seat, seed)

    report = simulate(checks=False, bots=bots, **run)
    assert report.violation_count == 0, report.violations
    return actions


def render() -> str:
    parts = []
    for name, run in RUNS.items():
        parts.append(f"## {name}\n")
        parts += [f"{action}\n" for action in sent(run)]
    return "".join(parts)


def recorded() -> dict[str, list[str]]:
    """The golden file's actions, by simulation."""
    runs: dict[str, list[str]] = {}
    current: list[str] = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = runs.setdefault(line[3:], [])
        else:
            current.append(line)
    return runs


def test_the_golden_file_records_every_simulation() -> None:
    runs = recorded()
    assert list(runs) == list(RUNS)
    for name, actions in runs.items():
        # Declarations, shows and discards among them: the solver's choices are all there.
        verbs = {action.split(" ")[1] for action in actions}
        assert {"discard", "declare", "show", "draw"} <= verbs, name


@pytest.mark.parametrize("name", list(RUNS))
def test_the_bots_send_the_recorded_actions(name: str) -> None:
    expected = recorded()[name]
    actual = sent(RUNS[name])
    # The first difference, with its place, rather than two long lists.
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"{name}: action {index} differs"
    assert len(actual) == len(expected), name


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    GOLDEN.write_text(render(), encoding="utf-8")
    print(f"wrote {GOLDEN}")
