"""Every game's views match its view type (``games/<name>/views.py``) exactly.

The conformance playouts (tests/games/test_conformance.py) check every view of every state
against its game's ``TypedDict`` with tests/typed_views.py; here, the check itself: that it sees
the fresh game's views, and that it fails when an engine adds or drops a key without updating
its type.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest

from conformance import run_conformance
from rummyhall.games.indian13.bot import Indian13Bot
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.indian13.views import Indian13View
from rummyhall.games.patti.bot import PattiBot
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.patti.views import PattiView
from rummyhall.games.protocol import Game
from typed_views import mismatches

GAMES: list[tuple[str, Any, Any, Any]] = [
    ("indian13", lambda: Indian13(Indian13Config(seats=3)), Indian13Bot, Indian13View),
    (
        "indian13-pool",
        lambda: Indian13(Indian13Config(seats=3, mode="pool101", entry_fee=10)),
        Indian13Bot,
        Indian13View,
    ),
    ("patti", lambda: Patti(PattiConfig(seats=4)), PattiBot, PattiView),
]


@pytest.mark.parametrize(("name", "make", "bot", "view_type"), GAMES)
def test_a_fresh_game_s_views_match(name: str, make: Any, bot: Any, view_type: Any) -> None:
    game: Game = make()
    for viewer in (None, 0, 1, 2):
        assert mismatches(game.view(viewer), view_type) == []


@pytest.mark.parametrize(("name", "make", "bot", "view_type"), GAMES)
def test_playouts_match(name: str, make: Any, bot: Any, view_type: Any) -> None:
    report = run_conformance(
        lambda seed: make(),
        lambda seat, seed: bot(seed=seed * 10 + seat),
        range(2),
        view_type=view_type,
    )
    assert report.typed_views == report.actions > 20


def _changed(cls: type[Game], change: Any) -> type[Game]:
    class Changed(cls):  # type: ignore[valid-type,misc]
        def view(self, seat: int | None) -> Any:
            data = copy.deepcopy(dict(super().view(seat)))
            change(data)
            return data

    return Changed


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda view: view.update(extra=1), "unknown key 'extra'"),
        (lambda view: view.pop("closed"), "no key 'closed'"),
        (lambda view: view.update(closed="52"), "'closed']: '52' is not an int"),
        (lambda view: view["seats"][0].pop("status"), "['seats'][0]: no key 'status'"),
        (lambda view: view["awaited"].append({"seat": 1}), "no key 'kind'"),
    ],
)
@pytest.mark.parametrize(("name", "make", "bot", "view_type"), GAMES)
def test_a_view_that_changes_without_its_type_fails(
    name: str, make: Any, bot: Any, view_type: Any, change: Any, problem: str
) -> None:
    engine = type(make())
    config = make().config
    changed = _changed(engine, change)
    with pytest.raises(AssertionError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        run_conformance(
            lambda seed: changed(config),
            lambda seat, seed: bot(seed=seat),
            range(1),
            view_type=view_type,
        )


@pytest.mark.parametrize(("name", "make", "bot", "view_type"), GAMES)
def test_views_built_together_that_differ_from_each_view_alone_fail(
    name: str, make: Any, bot: Any, view_type: Any
) -> None:
    engine = type(make())
    config = make().config

    class Apart(engine):  # type: ignore[valid-type,misc]
        def views(self, seats: Sequence[int | None]) -> list[Any]:
            return [{**view, "viewer": "someone else"} for view in super().views(seats)]

    with pytest.raises(AssertionError, match=r"views\(\.\.\.\) of None differs from view\(None\)"):
        run_conformance(
            lambda seed: Apart(config),
            lambda seat, seed: bot(seed=seat),
            range(1),
            view_type=view_type,
        )


def test_the_check_reads_unions_nested_types_and_bools() -> None:
    seat = {"seat": 1, "status": "playing", "cards": 13, "missed": 0, "bank": 0}
    seat |= {"score": None, "how": None, "shown": None}
    assert mismatches(seat, Indian13View.__annotations__["seats"].__args__[0]) == []
    from rummyhall.games.indian13.views import Indian13SeatView

    assert mismatches({**seat, "total": 5}, Indian13SeatView) == []
    assert mismatches({**seat, "cards": True}, Indian13SeatView) == [
        "view['cards']: True is not an int"
    ]
    assert mismatches({**seat, "shown": [["AS", 2]]}, Indian13SeatView) != []
