"""The catalog entry of 13-card Indian Rummy (:mod:`rummyhall.catalog`): what the server, the
command line and the simulator need to offer the game, and nothing they have to guess."""

from __future__ import annotations

from typing import Final

from rummyhall.bots import Bot
from rummyhall.catalog import CliOption, GamePlugin
from rummyhall.games.indian13.bot import Indian13Bot
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rooms import ROOMS
from rummyhall.games.indian13.rules import MODES, POOLS, PROFILE_RULES


def make_bot(seed: int) -> Bot:
    return Indian13Bot(seed=seed)


PLUGIN: Final = GamePlugin(
    name=Indian13.name,
    title="13-card Indian Rummy",
    label="13-card rummy",
    blurb="Meld 13 cards into sequences and sets; points, pool 101 and pool 201 tables.",
    engine=Indian13,
    bot=make_bot,
    rooms=ROOMS,
    # The parts below still live outside this folder (issue 16 moves them in, one by one).
    terminal="rummyhall.games.indian13.terminal:start",
    tally="rummyhall.games.indian13.tally:Indian13Tally",
    text="rummyhall.games.indian13.text:Indian13Text",
    play_options=(
        CliOption(("--profile",), "the rules (default classic)", choices=tuple(PROFILE_RULES)),
        CliOption(
            ("--pool",),
            "play a pool (else one deal for points)",
            type=int,
            choices=tuple(pool.elimination for pool in POOLS.values()),
        ),
    ),
    profiles=tuple(PROFILE_RULES),
    modes=MODES,
    order=10,
)
