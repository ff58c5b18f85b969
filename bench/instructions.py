"""Instructions a deal of ``rummyhall simulate`` costs, counted by valgrind (callgrind), with the
bots' solver answers looked up instead of computed: the engine's, the bots' and the checks' own
cost, which repeats to the instruction on a noisy machine where a time does not.

    python bench/instructions.py [--deals 20] [--src DIR ...]

For each source tree (``--src``, a ``src`` folder; default this checkout's), three runs of a fresh
interpreter under ``valgrind --tool=callgrind``: a first pass plays the deals and records every
solver answer the bots ask for, then the same deals are played again with those answers looked
up (the bots' memo emptied, the heap of the first pass frozen out of the collector's way), once
without checks and once with every invariant checked; a run that stops after the first pass is
the baseline the other two are measured against. Several trees are measured in the same run: a
before (a checkout of main) and an after. Needs valgrind (Debian's ``valgrind``); takes minutes.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

GAME = "indian13"
SEED = 1


def play(mode: str, deals: int) -> None:
    """The measured program (run under valgrind): record, then replay ``mode`` (plain, checks)."""
    import rummyhall.games.rummy.bot as bot_module
    from rummyhall.melds import arrange
    from rummyhall.sim import simulate

    answers: dict[Any, Any] = {}

    def recording(cards: Any, joker: Any, profile: Any) -> Any:
        key = (tuple(cards), joker, profile)
        if key not in answers:
            answers[key] = arrange(cards, joker=joker, profile=profile)
        return answers[key]

    def looked_up(cards: Any, joker: Any, profile: Any) -> Any:
        return answers[(tuple(cards), joker, profile)]

    setattr(bot_module, "arrange", recording)  # noqa: B010 (a module attribute, on purpose)
    simulate(game=GAME, deals=deals, seed=SEED, players=4, checks=False)
    getattr(bot_module, "_MEMO", {}).clear()
    setattr(bot_module, "arrange", looked_up)  # noqa: B010
    gc.collect()
    gc.freeze()
    if mode != "record":
        simulate(game=GAME, deals=deals, seed=SEED, players=4, checks=mode == "checks")


def count(src: Path, mode: str, deals: int) -> int:
    """Instructions of one run of :func:`play` with ``src`` first on the path."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        # Every run alike: the same hash seed, and no compiled module written by one run for the
        # next to find (each compiles what it imports, or each reads what was there before).
        env = {
            **os.environ,
            "PYTHONPATH": str(src),
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--play",
            mode,
            "--deals",
            str(deals),
        ]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from valgrind:\n{done.stderr}")
    return int(found.group(1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--src", type=Path, action="append", help="a src folder (repeatable)")
    parser.add_argument("--play", choices=("record", "plain", "checks"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.play:
        play(args.play, args.deals)
        return 0
    trees = args.src or [Path(__file__).resolve().parent.parent / "src"]
    print(f"instructions a deal, {GAME} classic points, 4 bots, {args.deals} deals (seed {SEED}):")
    for src in trees:
        base = count(src, "record", args.deals)
        plain = (count(src, "plain", args.deals) - base) / args.deals
        checks = (count(src, "checks", args.deals) - base) / args.deals
        print(
            f"  {src}: no checks {plain / 1e6:.2f} M, every invariant checked "
            f"{checks / 1e6:.2f} M ({checks / plain:.1f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
