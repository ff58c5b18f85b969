"""Golden records (tests/golden/*.json): whole games recorded once, replayed to the same result.

Each file is a game record (docs/records.md; ``rummyhall replay`` reads it) whose deals are
provably fair (stored as their seeds), with one more key, ``golden``: a description, the game in
notation for people, and the views every seat and the spectators had at the end. The test
replays the record and compares the result and every final view: any change to the engine that
changes how a recorded game plays out shows up here.

The files are data, checked in. They were made by bots (tests/games/test_golden.py ``--write`` makes
them again; only do that on purpose, after checking that a difference is intended)::

    .venv/bin/python tests/games/test_golden.py --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rummyhall.games.indian13.bot import Indian13Bot
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.marriage21.bot import Marriage21Bot
from rummyhall.games.marriage21.engine import Marriage21
from rummyhall.games.marriage21.rules import Marriage21Config
from rummyhall.games.patti.bot import PattiBot
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.protocol import Game, notation, replay
from rummyhall.games.rummy.bot import RummyBot
from rummyhall.games.rummy.engine import RummyGame
from rummyhall.games.rummy51.bot import Rummy51Bot
from rummyhall.games.rummy51.engine import Rummy51
from rummyhall.games.rummy51.rules import Rummy51Config
from rummyhall.sim import FairHouse, Runner, Tally

GOLDEN = Path(__file__).parents[1] / "golden"


class Blunderer:
    """A bot that declares too early: once its hand is within ``slack`` points of complete, it
    declares with its best groups anyway (a wrong declaration unless the hand is complete)."""

    def __init__(self, seed: int, slack: int, make: type[RummyBot] = Indian13Bot) -> None:
        self.bot = make(seed=seed)
        self.slack = slack

    def act(self, view: dict[str, Any]) -> str | None:
        action = self.bot.act(view)
        if action is None or not action.startswith("discard "):
            return action
        from rummyhall.games.rummy.bot import solve

        hand: list[str] = list(view["hand"])
        best = solve(self.bot.meld_profile(view), str(view["cut"]), hand)  # type: ignore[arg-type]
        if best.declarable or best.discard is None or best.penalty > self.slack:
            return action
        groups = [" ".join(map(str, group)) for group in best.groups]
        groups += [str(card) for card in best.leftover]
        return f"declare {best.discard} | {' | '.join(groups)}"


def play(config: Indian13Config, seed: int, slack: int = -1) -> Indian13:
    game = Indian13(config)
    play_rummy(game, seed, slack, Indian13Bot)
    return game


def play_marriage(config: Marriage21Config, seed: int, slack: int = -1) -> Marriage21:
    game = Marriage21(config)
    play_rummy(game, seed, slack, Marriage21Bot)
    return game


def play_rummy(game: RummyGame, seed: int, slack: int, make: type[RummyBot]) -> None:
    config = game.config
    bots = {
        seat: Blunderer(seed * 10 + seat, slack, make) if seat == 1 else make(seed * 10 + seat)
        for seat in range(1, config.seats + 1)
    }
    tally = Tally(config.seats)
    Runner(game, bots, FairHouse(seed, client_seed=f"golden-{seed}"), tally).run()
    assert game.over and not tally.violations, tally.violations


class Sleeper:
    """A Patti bot that lets its turn time out ``naps`` times in a row, from its second turn."""

    def __init__(self, seed: int, naps: int) -> None:
        self.bot = PattiBot(seed=seed)
        self.naps = naps
        self.turns = 0

    def act(self, view: dict[str, Any]) -> str | None:
        mine = [a for a in view["awaited"] if a["seat"] == view["viewer"]]
        if mine and mine[0]["kind"] == "turn":
            self.turns += 1
            if self.turns >= 2 and self.naps:
                self.naps -= 1
                return None  # the table applies the timeout at the deadline
        return self.bot.act(view)


def play_patti(config: PattiConfig, seed: int, naps: int = 0) -> Patti:
    game = Patti(config)
    bots: dict[int, Any] = {
        seat: PattiBot(seed=seed * 10 + seat) for seat in range(1, config.seats + 1)
    }
    if naps:
        bots[1] = Sleeper(seed * 10 + 1, naps)
    Runner(game, bots, FairHouse(seed, client_seed=f"golden-{seed}"), Tally(config.seats)).run()
    assert game.over
    return game


def patti_kinds(game: Patti) -> set[str]:
    """The moves of a game, and how it ended."""
    result = game.result
    assert result is not None
    moves = {str(move["move"]) for move in game.moves}
    return moves | {f"end: {result.detail['how']}"}


def wrong_declarations(game: Indian13) -> int:
    return sum(1 for deal in game.history if "wrong declaration" in deal["how"].values())


def plain(data: Any) -> Any:
    """``data`` as JSON gives it back (lists for tuples, string keys)."""
    return json.loads(json.dumps(data))


def document(name: str, description: str, game: Game) -> dict[str, Any]:
    """A golden file: the game record itself (``rummyhall replay`` reads it as it is), plus a
    ``golden`` part with the description, the game in notation and the final views."""
    record = plain(game.record())
    return {
        **record,
        "golden": {
            "name": name,
            "description": description,
            "notation": [notation(entry) for entry in record["actions"]],
            "views": {
                "spectators" if seat is None else str(seat): plain(game.view(seat))
                for seat in (None, *range(1, game.seats + 1))
            },
        },
    }


def make_all() -> list[dict[str, Any]]:
    """The golden games, found from seeds (deterministic: the same files every time)."""
    games = []
    classic = Indian13Config(profile="classic", seats=4)
    games.append(
        document(
            "indian13-classic-points",
            "classic, 4 players, one deal for points, bots",
            play(classic, 1),
        )
    )
    vengala = Indian13Config(profile="vengala", seats=3)
    games.append(
        document(
            "indian13-vengala-points",
            "vengala, 3 players, one deal for points, bots",
            play(vengala, 2),
        )
    )
    for seed in range(100, 400):
        game = play(classic, seed, slack=8)
        if wrong_declarations(game):
            games.append(
                document(
                    "indian13-classic-wrong-declaration",
                    f"classic, 4 players, points; seat 1 declares too early (seed {seed}): "
                    "80 points, and the others play on",
                    game,
                )
            )
            break
    pool = Indian13Config(profile="classic", seats=3, mode="pool101", entry_fee=50)
    games.append(
        document(
            "indian13-classic-pool101",
            "classic pool 101, 3 players with a 50-chip entry, a whole match with a rejoin, bots",
            play(pool, 4),
        )
    )
    games += marriage_games()
    games += rummy51_games()
    games += patti_games()
    return games


def play_rummy51(config: Rummy51Config, seed: int, naps: int = 0) -> Rummy51:
    """A game of Rummy 51 between its bots; seat 1 lets ``naps`` turns time out."""
    game = Rummy51(config)
    bots: dict[int, Any] = {
        seat: Rummy51Bot(seed=seed * 10 + seat) for seat in range(1, config.seats + 1)
    }
    if naps:
        bots[1] = Napper(bots[1], naps)
    tally = Tally(config.seats)
    Runner(game, bots, FairHouse(seed, client_seed=f"golden-{seed}"), tally).run()
    assert game.over and not tally.violations, tally.violations
    return game


class Napper:
    """A bot that lets its turn time out ``naps`` times, from its second turn on."""

    def __init__(self, bot: Any, naps: int) -> None:
        self.bot = bot
        self.naps = naps
        self.turns: set[int] = set()

    def act(self, view: dict[str, Any]) -> str | None:
        if view.get("turn") == view["viewer"] and not view.get("drawn") and self.naps:
            self.turns.add(view["closed"])  # one fewer card in the stock each turn
            if len(self.turns) >= 2:
                self.naps -= 1
                return None  # the table applies the timeout at the deadline
        return self.bot.act(view)


def rummy51_games() -> list[dict[str, Any]]:
    """Rummy 51: a 4-player game with lay-offs and a joker swap, a "Rummy", and a 3-player game
    with timeouts."""
    found: dict[str, dict[str, Any]] = {}
    four = Rummy51Config(seats=4, stake=10, first=2)
    for seed in range(1, 300):
        game = play_rummy51(four, seed)
        actions = {entry["action"].split()[0] for entry in game.log}
        if {"add", "swap", "meld"} <= actions:
            text = f"4 players, stake 10: openings, lay-offs, a joker swap; bots (seed {seed})"
            found["rummy51-lay-offs"] = document("rummy51-lay-offs", f"rummy51, {text}", game)
            break
    two = Rummy51Config(seats=2, stake=10)
    for seed in range(1, 2000):
        game = play_rummy51(two, seed)
        if game.result is not None and game.result.detail["rummy"]:
            text = f"2 players: a Rummy, out in the turn of the opening; bots (seed {seed})"
            found["rummy51-rummy"] = document("rummy51-rummy", f"rummy51, {text}", game)
            break
    three = Rummy51Config(seats=3, stake=5, first=3)
    game = play_rummy51(three, 7, naps=2)
    text = "3 players, stake 5: seat 1 lets two turns time out; bots"
    found["rummy51-timeouts"] = document("rummy51-timeouts", f"rummy51, {text}", game)
    assert set(found) == {"rummy51-lay-offs", "rummy51-rummy", "rummy51-timeouts"}, set(found)
    return list(found.values())


def marriage_games() -> list[dict[str, Any]]:
    """21-card Marriage: a 4-player deal with value cards changing hands, and a 3-player deal
    with a wrong declaration (which still exchanges value cards)."""
    games = []
    four = Marriage21Config(seats=4)
    for seed in range(1, 200):
        game = play_marriage(four, seed)
        summary = game.history[-1]
        if any(held["worth"] for held in summary.get("values", {}).values()):
            text = f"4 players, one deal for points, value cards exchanged; bots (seed {seed})"
            games.append(document("marriage21-points", f"marriage21, {text}", game))
            break
    three = Marriage21Config(seats=3)
    for seed in range(200, 500):
        game = play_marriage(three, seed, slack=12)
        if "wrong declaration" in game.history[-1]["how"].values():
            text = (
                f"3 players; seat 1 declares too early (seed {seed}): 120 points, its value "
                "cards still exchanged, and the others play on"
            )
            games.append(document("marriage21-wrong-declaration", f"marriage21, {text}", game))
            break
    assert len(games) == 2, [g["golden"]["name"] for g in games]
    return games


def patti_games() -> list[dict[str, Any]]:
    """Rummy Patti: a show after an accepted sideshow and exchanges with both centre cards; a pot
    limit; timeouts (a chaal played for a seat, then a pack); a seat out of chips."""
    found: dict[str, dict[str, Any]] = {}
    six = PattiConfig(seats=6, boot=10, first=3)
    wanted = {"sideshow", "accept", "exchange open", "exchange closed", "end: show"}
    for seed in range(1, 400):
        game = play_patti(six, seed)
        if wanted <= patti_kinds(game):
            text = "6 players, boot 10: an accepted sideshow, both exchanges, a show; bots"
            found["patti-show"] = document("patti-show", f"patti, {text} (seed {seed})", game)
            break
    five = PattiConfig(seats=5, boot=5, max_chaal=40, pot_limit=400, first=5)
    for seed in range(1, 400):
        game = play_patti(five, seed)
        if "end: pot limit" in patti_kinds(game) and len(game.shown) >= 3:
            text = "5 players, boot 5, max chaal 40, pot limit 400: a showdown at the pot limit"
            found["patti-pot-limit"] = document("patti-pot-limit", f"patti, {text}", game)
            break
    short = PattiConfig(seats=4, boot=10, stacks=(500, 500, 45, 5), first=2)
    for seed in range(1, 400):
        game = play_patti(short, seed, naps=2)
        if {"timeout chaal", "timeout", "out of chips"} <= patti_kinds(game):
            text = (
                "4 players, seat 4 cannot pay the boot, seat 3 runs out of chips, seat 1 "
                "times out twice (a chaal played for it, then packed)"
            )
            found["patti-timeouts"] = document("patti-timeouts", f"patti, {text}", game)
            break
    assert set(found) == {"patti-show", "patti-pot-limit", "patti-timeouts"}, set(found)
    return list(found.values())


def dump(data: dict[str, Any]) -> str:
    """JSON with one action, one line of notation and one view per line (readable diffs)."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    def lines(items: list[str], indent: str) -> str:
        return "[\n" + ",\n".join(indent + "  " + item for item in items) + f"\n{indent}]"

    golden = data["golden"]
    views = [f"      {one(seat)}: {one(view)}" for seat, view in golden["views"].items()]
    extra = [
        f'    "name": {one(golden["name"])}',
        f'    "description": {one(golden["description"])}',
        '    "notation": ' + lines([one(line) for line in golden["notation"]], "    "),
        '    "views": {\n' + ",\n".join(views) + "\n    }",
    ]
    body = [
        f'"game": {one(data["game"])}',
        f'"config": {one(data["config"])}',
        '"actions": ' + lines([one(entry) for entry in data["actions"]], "  "),
        f'"result": {one(data["result"])}',
        '"golden": {\n' + ",\n".join(extra) + "\n  }",
    ]
    text = "{\n" + ",\n".join("  " + part for part in body) + "\n}\n"
    assert json.loads(text) == data
    return text


def write_all() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for data in make_all():
        path = GOLDEN / f"{data['golden']['name']}.json"
        path.write_text(dump(data), encoding="utf-8")
        print(f"wrote {path} ({len(data['actions'])} actions)")


FILES = sorted(GOLDEN.glob("*.json"))


def test_the_golden_games_are_there() -> None:
    names = {path.stem for path in FILES}
    assert names == {
        "indian13-classic-points",
        "indian13-vengala-points",
        "indian13-classic-wrong-declaration",
        "indian13-classic-pool101",
        "marriage21-points",
        "marriage21-wrong-declaration",
        "rummy51-lay-offs",
        "rummy51-rummy",
        "rummy51-timeouts",
        "patti-show",
        "patti-pot-limit",
        "patti-timeouts",
    }


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_golden_game_replays_to_the_same_end(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    golden = record["golden"]
    assert golden["name"] == path.stem
    assert path.stem.startswith(f"{record['game']}-")  # <game>-<what>.json: found per game
    assert [notation(entry) for entry in record["actions"]] == golden["notation"]
    deals = [entry["deal"] for entry in record["actions"] if "deal" in entry]
    assert deals and all("server_seed" in deal or "cards" in deal for deal in deals)
    assert any("server_seed" in deal for deal in deals)  # provably fair
    game = replay(record)
    assert game.result is not None
    assert json.loads(json.dumps(game.result.to_json())) == record["result"]
    for seat, view in golden["views"].items():
        viewer = None if seat == "spectators" else int(seat)
        assert json.loads(json.dumps(game.view(viewer))) == view, f"view of {seat}"


def test_the_golden_games_show_what_they_say() -> None:
    by_name = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in FILES}
    wrong = by_name["indian13-classic-wrong-declaration"]
    deal = wrong["result"]["detail"]["deals"][0]
    assert "wrong declaration" in deal["how"].values()
    assert sum(1 for how in deal["how"].values() if how in ("declared", "shown")) >= 2
    pool = by_name["indian13-classic-pool101"]
    assert pool["config"]["mode"] == "pool101"
    assert len(pool["result"]["detail"]["deals"]) > 1
    assert max(pool["result"]["points"].values()) >= 101
    assert any(entry["action"] == "rejoin" for entry in pool["actions"])
    assert by_name["indian13-vengala-points"]["config"]["profile"] == "vengala"
    assert by_name["indian13-classic-points"]["config"]["profile"] == "classic"
    patti = {name: by_name[name] for name in by_name if name.startswith("patti")}
    actions = {name: [entry["action"] for entry in data["actions"]] for name, data in patti.items()}
    assert patti["patti-show"]["result"]["detail"]["how"] == "show"
    assert {"sideshow", "accept"} <= set(actions["patti-show"])
    assert any(a.startswith("exchange closed") for a in actions["patti-show"])
    assert patti["patti-pot-limit"]["result"]["detail"]["how"] == "pot limit"
    assert len(patti["patti-pot-limit"]["result"]["detail"]["shown"]) >= 3
    timeouts = [e for e in patti["patti-timeouts"]["actions"] if e["action"] == "timeout"]
    assert [e["seat"] for e in timeouts] == [1, 1]
    final = patti["patti-timeouts"]["golden"]["views"]["spectators"]
    statuses = {entry["seat"]: entry["status"] for entry in final["seats"]}
    assert statuses[4] == "out"
    assert any(m["move"] == "out of chips" for m in final["moves"])
    for data in patti.values():
        assert sum(p["amount"] for p in data["result"]["postings"]) == 0
    r51 = {name: by_name[name] for name in by_name if name.startswith("rummy51")}
    kinds = {entry["action"].split()[0] for entry in r51["rummy51-lay-offs"]["actions"]}
    assert {"open", "meld", "add", "swap"} <= kinds
    assert r51["rummy51-rummy"]["result"]["detail"]["rummy"]
    naps = [e for e in r51["rummy51-timeouts"]["actions"] if e["action"] == "timeout"]
    assert [e["seat"] for e in naps] == [1, 1]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    write_all()
