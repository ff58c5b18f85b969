"""The shape of a 13-card rummy view: the shared rummy view (:mod:`rummyhall.games.rummy.views`),
which 13-card Indian Rummy uses as it is."""

from collections.abc import Mapping
from typing import Any, cast

from rummyhall.games.rummy.views import DealSummary, PoolView, RummySeatView, RummyView, TossView

Indian13View = RummyView
Indian13SeatView = RummySeatView


def indian13_view(view: Mapping[str, Any]) -> Indian13View | None:
    """``view`` as a 13-card view if it is one (its ``game`` says so), else None: how code that
    is handed any game's view (a bot, through the ``Bot`` protocol) gets the typed one."""
    return cast(Indian13View, view) if view.get("game") == "indian13" else None


__all__ = [
    "DealSummary",
    "Indian13SeatView",
    "Indian13View",
    "PoolView",
    "TossView",
    "indian13_view",
]
