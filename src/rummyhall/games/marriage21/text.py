"""How 21-card Marriage Rummy reads as text: the shared rummy renderer
(:class:`rummyhall.games.rummy.text.RummyText`), which also says what each deal's value cards and
nets were (``values`` and ``settlement`` of its summary)."""

from __future__ import annotations

from rummyhall.games.rummy.text import RummyText


class Marriage21Text(RummyText):
    """The text of one Marriage record (its catalog entry's renderer)."""
