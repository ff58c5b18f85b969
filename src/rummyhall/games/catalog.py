"""The games this installation offers: importing an engine's module registers it with the
protocol (:func:`rummyhall.games.protocol.register`), and this is the one place that imports them
all for the server and the command line."""

from __future__ import annotations

import importlib

ENGINES: tuple[str, ...] = ("indian13.engine", "patti.engine")
"""Module names under :mod:`rummyhall.games`; each registers the game of the same name."""


def load_all() -> None:
    for name in ENGINES:
        importlib.import_module(f"rummyhall.games.{name}")
