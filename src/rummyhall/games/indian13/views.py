"""The shape of a 13-card rummy view: the shared rummy view (:mod:`rummyhall.games.rummy.views`),
which 13-card Indian Rummy uses as it is."""

from rummyhall.games.rummy.views import DealSummary, PoolView, RummySeatView, RummyView, TossView

Indian13View = RummyView
Indian13SeatView = RummySeatView


__all__ = [
    "DealSummary",
    "Indian13SeatView",
    "Indian13View",
    "PoolView",
    "TossView",
]
