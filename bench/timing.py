"""What the game benchmarks share (bench/marriage21.py, bench/rummy51.py): percentiles, the
verdict on a target, and bots whose every decision is timed.

As ``timeit`` does, the garbage collector is paused during each timed call, so a collection is not
billed to whichever call it happened to interrupt."""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence

from rummyhall.bots import Bot
from rummyhall.games.protocol import View
from rummyhall.sim import BotFactory, own_bots


def percentile(values: Sequence[float], q: float) -> float:
    """The value below which a fraction ``q`` of ``values`` lie (bench/solver.py's rule)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


class TimedBot:
    """A bot whose every decision is timed into a list shared by the bots of one run."""

    def __init__(self, bot: Bot, times: list[float]) -> None:
        self.bot = bot
        self.times = times

    def act(self, view: View) -> str | None:
        gc.disable()
        try:
            started = time.perf_counter()
            action = self.bot.act(view)
            self.times.append(time.perf_counter() - started)
        finally:
            gc.enable()
        return action


def timed_bots(game: str, times: list[float]) -> BotFactory:
    """The game's own bots (the catalog's factory), each decision timed into ``times``."""
    make = own_bots(game)
    return lambda seat, seed: TimedBot(make(seat, seed), times)
