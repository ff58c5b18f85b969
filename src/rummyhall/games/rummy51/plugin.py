"""The catalog entry of Rummy 51 (:mod:`rummyhall.catalog`): what the server, the command line and
the simulator need to offer the game, and nothing they have to guess."""

from __future__ import annotations

from typing import Final

from rummyhall.bots import Bot
from rummyhall.catalog import CliOption, GamePlugin
from rummyhall.games.rummy51.bot import Rummy51Bot
from rummyhall.games.rummy51.engine import Rummy51
from rummyhall.games.rummy51.rooms import ROOMS


def make_bot(seed: int) -> Bot:
    return Rummy51Bot(seed=seed)


PLUGIN: Final = GamePlugin(
    name=Rummy51.name,
    title="Rummy 51",
    blurb="Open with 51, then lay off on anyone's groups and swap jokers off the table: the "
    "first to throw the last card wins.",
    engine=Rummy51,
    bot=make_bot,
    rooms=ROOMS,
    terminal="rummyhall.games.rummy51.terminal:start",
    tally="rummyhall.games.rummy51.tally:Rummy51Tally",
    text="rummyhall.games.rummy51.text:Rummy51Text",
    play_options=(
        CliOption(
            ("--stake",),
            "chips each player puts in a game; who goes out takes them (default 0)",
            type=int,
        ),
    ),
    order=30,
)
