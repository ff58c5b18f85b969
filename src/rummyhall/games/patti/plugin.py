"""The catalog entry of Rummy Patti (:mod:`rummyhall.catalog`): what the server, the command line
and the simulator need to offer the game, and nothing they have to guess."""

from __future__ import annotations

from typing import Final

from rummyhall.bots import Bot
from rummyhall.catalog import CliOption, GamePlugin
from rummyhall.games.patti.bot import PattiBot
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.rooms import ROOMS


def make_bot(seed: int) -> Bot:
    return PattiBot(seed=seed)


PLUGIN: Final = GamePlugin(
    name=Patti.name,
    title="Rummy Patti",
    blurb="Three cards, a pot and nerve: chaal, exchange, sideshow and show.",
    engine=Patti,
    bot=make_bot,
    rooms=ROOMS,
    terminal="rummyhall.games.patti.terminal:start",
    tally="rummyhall.games.patti.tally:PattiTally",
    text="rummyhall.games.patti.text:PattiText",
    play_options=(
        CliOption(("--boot",), "the boot (default 10)", type=int),
        CliOption(("--stack",), "chips each player brings (default 100 boots)", type=int),
    ),
    order=40,
)
