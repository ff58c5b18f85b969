"""How 13-card Indian Rummy reads as text: the shared rummy renderer
(:class:`rummyhall.games.rummy.text.RummyText`), which says everything the 13-card game needs."""

from __future__ import annotations

from rummyhall.games.rummy.text import RummyText


class Indian13Text(RummyText):
    """The text of one 13-card record (its catalog entry's renderer)."""
