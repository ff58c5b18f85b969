"""The games this installation offers, found by looking: every game is one folder,
``src/rummyhall/games/<name>/``, and the catalog lists the folders that hold a ``plugin`` module
(docs/architecture.md). Adding a game is adding its folder (and its web view); there is no list
of names to extend anywhere.

A game's ``plugin.py`` defines ``PLUGIN``, a :class:`GamePlugin`: the game's name and title, its
engine class, its bot, its lobby rooms, and the import strings (``"module:attribute"``) of its
parts in layers above the catalog (its terminal table, its simulation tally, its text renderer),
resolved only when used. Everything that used to switch on a game's name asks the catalog
instead:

* :func:`games`: every plugin, in lobby order (:attr:`GamePlugin.order`, then name);
* :func:`get`: one by name (:class:`UnknownGame`, a ValueError naming the known games, if none);
* :func:`rooms`: every game's rooms with the gold twins of its silver rooms, in lobby order (the
  server builds ``Rooms(rooms())``);
* :func:`default`: the game a command runs when none is named (the first in lobby order).

Layers (DESIGN.md): the catalog sits above ``games``, ``bots`` and ``economy`` (a plugin names an
engine, a bot and rooms) and below the server, the command line, the terminal tables and the
simulator, which reach every game through it. :func:`rummyhall.games.protocol.game_class`, which
replays a record by its game's name, looks the name up here too.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO, cast

import rummyhall.games
from rummyhall.bots import Bot
from rummyhall.economy.rooms import Room, with_gold_twins
from rummyhall.games.protocol import Game

if TYPE_CHECKING:
    from rummyhall.games.text import GameText
    from rummyhall.sim import Tally

PLUGIN_MODULE: Final = "plugin"
"""The module of a game's folder that holds its catalog entry, as ``PLUGIN``."""

_REF: Final = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")

MakeBot = Callable[[int], Bot]
"""A seed -> a new bot for the game (same seed, same bot)."""


@dataclass(frozen=True, slots=True)
class CliOption:
    """An option of ``rummyhall play`` that only some games take (``--boot``, ``--pool``...).
    The command line offers the options of every game and refuses, by name, those the chosen game
    does not take; the game's terminal table reads its own from :attr:`PlayRequest.options`."""

    flags: tuple[str, ...]
    """The option's spellings, e.g. ``("--boot",)``; the first names it (its ``dest``)."""
    help: str
    type: Callable[[str], Any] | None = None
    choices: tuple[Any, ...] | None = None

    @property
    def dest(self) -> str:
        """The key of the option's value (``--client-seed`` -> ``client_seed``)."""
        return self.flags[0].lstrip("-").replace("-", "_")


@dataclass(frozen=True, slots=True)
class PlayRequest:
    """What ``rummyhall play GAME`` was asked for: what every game takes, and the game's own
    options (:attr:`GamePlugin.play_options`) by ``dest``, None when not given."""

    players: int
    seed: int
    name: str
    record: Path | None
    client_seed: str | None
    options: Mapping[str, Any] = field(default_factory=dict)


PlayEntry = Callable[[PlayRequest, TextIO], Callable[[], int]]
"""A game's terminal table (:attr:`GamePlugin.terminal`): checks a request, raising ValueError
(said on standard error, exit status 2) before anything is shown, and returns the session to run,
which returns the exit status."""


class UnknownGame(ValueError):
    """A game name the catalog does not know; the message names the ones it knows."""


@dataclass(frozen=True, slots=True)
class GamePlugin:
    """One game's catalog entry (``PLUGIN`` in ``games/<name>/plugin.py``)."""

    name: str
    """The game's id in configs, records, rooms and URLs; the folder's name and the engine's
    :attr:`~rummyhall.games.protocol.Game.name`."""
    title: str
    """The game's name for people (``Rummy Patti``)."""
    engine: type[Game]
    """The engine class (:mod:`rummyhall.games.protocol`)."""
    bot: MakeBot
    """A new bot for the game, from a seed."""
    rooms: tuple[Room, ...]
    """The game's rooms in a fresh install's lobby, in lobby order: its silver and practice rooms
    (the catalog adds a gold twin of every silver room: :func:`rooms`)."""
    terminal: str
    """``"module:function"``: the game's terminal table for ``rummyhall play`` (a
    :data:`PlayEntry`)."""
    tally: str
    """``"module:Class"``: the game's :class:`rummyhall.sim.Tally`: how a simulation sets up its
    tables, what it counts and how it reports them (``rummyhall simulate``)."""
    text: str
    """``"module:Class"``: the game's renderer, a :class:`rummyhall.games.text.GameText`: its
    events, deals and results as text (``rummyhall replay --verbose``, logs)."""
    play_options: tuple[CliOption, ...] = ()
    """The options of ``rummyhall play <name>`` beyond those every game takes."""
    profiles: tuple[str, ...] = ()
    """The rule profiles a config may name (``profile``), default first; empty if none."""
    modes: tuple[str, ...] = ()
    """The ways a table of the game is played that ``rummyhall simulate --mode`` may ask for
    (13-card: ``points``, ``pool101``, ``pool201``), default first; empty: one way only."""
    order: int = 50
    """The game's place in the lobby and in lists: lower first, then by name."""
    label: str = ""
    """The game's short name in the lobby's headings and the history's lists ("13-card rummy");
    the :attr:`title` when empty."""
    blurb: str = ""
    """One line under the game's heading in the lobby: what playing it is like."""
    web_view: str = ""
    """The URL path of the game's view module in the browser client, relative to the client's root
    (``src/rummyhall/web``); ``js/games/<name>.js`` when empty (docs/client.md, "The games'
    views")."""
    web_style: str = ""
    """The URL path of the view's style sheet, relative to the client's root; ``css/<name>.css``
    when empty (the shell links it only when the file is there)."""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.title)
        if not self.web_view:
            object.__setattr__(self, "web_view", f"js/games/{self.name}.js")
        if not self.web_style:
            object.__setattr__(self, "web_style", f"css/{self.name}.css")
        for path in (self.web_view, self.web_style):
            if path.startswith("/") or ".." in path.split("/"):
                raise ValueError(f"plugin {self.name!r}: {path!r} is not a path inside the client")
        if self.name != self.engine.name:
            raise ValueError(f"plugin {self.name!r} names the engine of {self.engine.name!r}")
        for room in self.rooms:
            if room.game != self.name:
                raise ValueError(f"plugin {self.name!r} offers room {room.key!r} of {room.game!r}")
        for ref in (self.terminal, self.tally, self.text):
            if not _REF.fullmatch(ref):
                raise ValueError(f"plugin {self.name!r}: {ref!r} is not 'module:attribute'")

    def play_entry(self) -> PlayEntry:
        return cast(PlayEntry, resolve(self.terminal))

    def tally_class(self) -> type[Tally]:
        return cast("type[Tally]", resolve(self.tally))

    def renderer(self) -> GameText[Any]:
        """A new renderer of the game's text (one per record: it reads the record in order)."""
        return cast("type[GameText[Any]]", resolve(self.text))()


def resolve(ref: str) -> Any:
    """The object an import string names: ``"rummyhall.sim:Tally"`` -> the class."""
    module, _, attribute = ref.partition(":")
    return getattr(importlib.import_module(module), attribute)


@functools.cache
def _discover() -> tuple[GamePlugin, ...]:
    found: list[GamePlugin] = []
    for info in pkgutil.iter_modules(rummyhall.games.__path__):
        if not info.ispkg:
            continue
        name = f"{rummyhall.games.__name__}.{info.name}.{PLUGIN_MODULE}"
        if importlib.util.find_spec(name) is None:
            continue
        plugin = getattr(importlib.import_module(name), "PLUGIN", None)
        if not isinstance(plugin, GamePlugin):
            raise TypeError(f"{name}.PLUGIN must be a GamePlugin")
        if plugin.name != info.name:
            raise ValueError(f"{name} is the plugin of {plugin.name!r}, not of {info.name!r}")
        found.append(plugin)
    return tuple(sorted(found, key=lambda plugin: (plugin.order, plugin.name)))


def games() -> tuple[GamePlugin, ...]:
    """Every game of the installation, in lobby order (:attr:`GamePlugin.order`, then name)."""
    return _discover()


def names() -> list[str]:
    """The names of every game, in lobby order."""
    return [plugin.name for plugin in games()]


def get(name: str) -> GamePlugin:
    """The game called ``name``; :class:`UnknownGame` if there is none."""
    for plugin in games():
        if plugin.name == name:
            return plugin
    raise UnknownGame(f"unknown game {name!r}; known: {', '.join(sorted(names()))}")


def default() -> GamePlugin:
    """The game a command runs when none is named: the first in lobby order."""
    return games()[0]


def rooms() -> tuple[Room, ...]:
    """The rooms of a fresh install's lobby: every game's, in lobby order, each game's followed by
    the gold twins of its silver rooms (:func:`~rummyhall.economy.rooms.with_gold_twins`: a game
    lists only its silver and practice rooms)."""
    return tuple(room for plugin in games() for room in with_gold_twins(plugin.rooms))
