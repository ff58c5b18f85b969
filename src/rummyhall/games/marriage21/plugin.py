"""The catalog entry of 21-card Marriage Rummy (:mod:`rummyhall.catalog`): what the server, the
command line and the simulator need to offer the game, and nothing they have to guess."""

from __future__ import annotations

from typing import Final

from rummyhall.bots import Bot
from rummyhall.catalog import GamePlugin
from rummyhall.games.marriage21.bot import Marriage21Bot
from rummyhall.games.marriage21.engine import Marriage21
from rummyhall.games.marriage21.rooms import ROOMS
from rummyhall.games.marriage21.rules import STANDARD


def make_bot(seed: int) -> Bot:
    return Marriage21Bot(seed=seed)


PLUGIN: Final = GamePlugin(
    name=Marriage21.name,
    title="21-card Marriage Rummy",
    label="21-card Marriage",
    blurb="21 cards from three packs: three pure sequences to win, value cards and marriages "
    "pay even when you lose.",
    engine=Marriage21,
    bot=make_bot,
    rooms=ROOMS,
    terminal="rummyhall.games.marriage21.terminal:start",
    tally="rummyhall.games.marriage21.tally:Marriage21Tally",
    text="rummyhall.games.marriage21.text:Marriage21Text",
    profiles=(STANDARD.name,),
    order=20,
)
