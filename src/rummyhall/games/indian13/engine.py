"""13-card Indian Rummy: the shared rummy engine (:mod:`rummyhall.games.rummy.engine`) with the
13-card numbers, for both rule profiles (``classic``, ``vengala``), played for points or as a
101 / 201 pool.

The rules are docs/rules/indian-rummy-13.md; the numbers and the config live in
:mod:`rummyhall.games.indian13.rules`; the actions, and what the engine decides where the rules
say nothing, are described in the shared engine's docstring and docs/records.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.indian13.views import Indian13View
from rummyhall.games.rummy.engine import RummyGame


class Indian13(RummyGame):
    """13-card Indian Rummy."""

    name: ClassVar[str] = "indian13"
    view_type: ClassVar[Any] = Indian13View

    def __init__(self, config: Indian13Config | None = None) -> None:
        super().__init__(config or Indian13Config())

    @classmethod
    def create(cls, config: Mapping[str, Any]) -> Indian13:
        return cls(Indian13Config.from_json(config))
