"""The shape of a Rummy Patti view (:meth:`Patti.view
<rummyhall.games.patti.engine.Patti.view>`).

Views are sent as JSON unchanged, so their types are ``TypedDict``\\ s: the engine builds them, the
bot, the terminal table and the text renderer read them, and mypy checks every key on both sides.
A key that is only sometimes there is ``NotRequired`` (tests/games/test_views.py checks every
view the conformance playouts produce against these types, key by key). Some keys are named
``class``, a Python keyword, so these types use the functional form.
"""

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, cast

from rummyhall.games.protocol_views import AwaitedView, ResultView


class SideshowView(TypedDict):
    """The sideshow being asked now."""

    asker: int
    asked: int


class MoveView(TypedDict):
    """An entry of ``moves``: a move as the table saw it (no cards)."""

    seat: int
    move: str
    amount: int


PattiSeatView = TypedDict(
    "PattiSeatView",
    {
        "seat": int,
        "status": str,
        "stack": int,
        "paid": int,
        "timeouts": int,
        "moved": bool,
        "shown": list[str] | None,
        "class": str | None,
    },
)
"""One seat. ``shown`` and ``class`` (its hand's class) are None until its hand is turned over at
a showdown."""

SeenView = TypedDict(
    "SeenView",
    {"seat": int, "cards": list[str], "class": str, "outcome": str, "after_move": int},
)
"""An entry of a player's ``seen``: a hand it saw in a sideshow, as it was then, how its own
compared (``win``, ``lose``, ``tie``) and after how many ``moves``."""

PattiView = TypedDict(
    "PattiView",
    {
        "game": str,
        "viewer": int | None,
        "phase": str,
        "boot": int,
        "max_chaal": int,
        "pot_limit": int,
        "order": list[int],
        "first": int,
        "dealer": int,
        "pot": int,
        "chaal": int,
        "chaal_2x": int | None,
        "open": list[str],
        "closed": int,
        "turn": int | None,
        "sideshow": SideshowView | None,
        "awaited": list[AwaitedView],
        "seats": list[PattiSeatView],
        "moves": list[MoveView],
        "winners": list[int],
        "how": str | None,
        "result": ResultView | None,
        # A player's own view only:
        "hand": NotRequired[list[str]],
        "class": NotRequired[str | None],
        "seen": NotRequired[list[SeenView]],
    },
)
"""What one seat (``viewer``; None: a spectator, 0: the house) sees of a Patti game. A player's
own view adds its ``hand``, the hand's ``class`` (None before the deal) and what it has ``seen``."""


def patti_view(view: Mapping[str, Any]) -> PattiView | None:
    """``view`` as a patti view if it is one (its ``game`` says so), else None: how code that is
    handed any game's view (a bot, through the ``Bot`` protocol) gets the typed one."""
    return cast(PattiView, view) if view.get("game") == "patti" else None


__all__ = ["MoveView", "PattiSeatView", "PattiView", "SeenView", "SideshowView", "patti_view"]
