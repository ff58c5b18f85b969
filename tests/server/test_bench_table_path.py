"""bench/table_path.py drives the hub and the table actors as the WebSocket endpoint does, with
connections of its own: a short run keeps it working as they change, every table playing (each
action told to its four players) and the ledger audit clean afterwards."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "table_path.py"


def test_the_table_path_bench_plays_every_table_and_leaves_a_clean_ledger() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--tables", "5", "--actions", "300"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    out = done.stdout
    played = re.search(r"([\d,]+) actions in", out)
    assert played is not None and int(played.group(1).replace(",", "")) >= 300, out
    sent = re.search(r"([\d.]+) messages an action", out)
    # Each action goes to the table's four players (more with the house's deals between).
    assert sent is not None and float(sent.group(1)) >= 4, out
    assert "audit after the run: clean" in out, out
