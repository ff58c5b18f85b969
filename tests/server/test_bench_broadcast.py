"""bench/broadcast.py reaches into the table actor (its broadcast, on a table with only what
that reads): a short run of it keeps it working as the actor changes, and its room and plain
messages the same size (the same messages, encoded two ways)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "broadcast.py"


def test_the_broadcast_bench_runs_and_both_ways_send_as_much() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--deals", "1"], capture_output=True, text=True, check=True
    )
    lines = [line for line in done.stdout.splitlines() if "changes:" in line]
    assert [line.split()[0] for line in lines] == ["patti", "indian13"]
    for line in lines:
        sizes = re.search(r"([\d,]+) bytes a message \(plain ([\d,]+)\)", line)
        assert sizes is not None and sizes.group(1) == sizes.group(2), line
