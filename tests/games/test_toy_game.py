"""A third game, written here and plugged in through the catalog alone (tests/plugin_kit.py):
nothing in src names it, and yet the server seats it, bots fill its tables, the simulator plays
it, ``rummyhall simulate`` and ``rummyhall replay`` run it and the conformance suite passes it
(issue 16, "every game a plug-in").

High card: 2 to 4 seats; the house deals one card to each seat from a fair deal of one 52-card
deck; every seat then says ``show`` (or its timeout shows for it); when all have shown, the
highest card wins (aces high, then spades, hearts, diamonds, clubs) and takes ``stake`` from each
other seat. A seat sees its own card; the others' stay hidden until the end.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, TextIO

import pytest

from conformance import run_conformance
from plugin_kit import installed
from rummyhall import catalog, cli
from rummyhall.cards import Card, Suit, shoe
from rummyhall.catalog import GamePlugin, PlayRequest
from rummyhall.economy.audit import audit_database
from rummyhall.economy.rooms import Room, practice
from rummyhall.games.protocol import (
    HOUSE,
    JSON,
    Awaited,
    BadAction,
    Deal,
    Event,
    Game,
    IllegalAction,
    InvalidCards,
    Posting,
    Result,
    TooEarly,
    TooLate,
    replay,
)
from rummyhall.games.text import GameText
from rummyhall.sim import SimReport, Tally, simulate
from rummyhall.terminal.base import HUMAN, TerminalBase, house_bots, new_fair_deal

NAME = "highcard"
SHOW_MS = 20_000
_SHOE = tuple(shoe(1, 0))
_SUITS = (Suit.C, Suit.D, Suit.H, Suit.S)


def strength(card: Card) -> tuple[int, int]:
    return (14 if card.rank == 1 else card.rank, _SUITS.index(card.suit) if card.suit else 0)


# --- the engine (games layer) ------------------------------------------------------------------


class HighCard(Game):
    name: ClassVar[str] = NAME

    def __init__(self, seats: int = 2, stake: int = 1) -> None:
        super().__init__()
        if not 2 <= seats <= 4 or stake < 1:
            raise ValueError("high card seats 2 to 4 players for a positive stake")
        self._seats, self.stake = seats, stake
        self.cards: dict[int, Card] = {}
        self.rest: list[Card] = []
        self.shown: list[int] = []
        self.deadline: int | None = None
        self._result: Result | None = None

    @property
    def seats(self) -> int:
        return self._seats

    def config_json(self) -> JSON:
        return {"seats": self._seats, "stake": self.stake}

    @classmethod
    def create(cls, config: Mapping[str, Any]) -> HighCard:
        return cls(int(config.get("seats", 2)), int(config.get("stake", 1)))

    @property
    def result(self) -> Result | None:
        return self._result

    def awaited(self) -> list[Awaited]:
        if self._result is not None:
            return []
        if not self.cards:
            return [Awaited(HOUSE, "deal", None)]
        return [Awaited(s, "show", self.deadline) for s in self.cards if s not in self.shown]

    def legal(self, seat: int) -> list[str]:
        return ["show"] if any(a.seat == seat for a in self.awaited()) else []

    def _apply(self, seat: int, action: str, deal: Deal | None, at: int) -> list[Event]:
        if action == "deal":
            assert deal is not None
            return self._deal(deal, at)
        if action not in ("show", "timeout"):
            raise BadAction(f"unknown action {action!r}: say show")
        if not self.cards:
            raise IllegalAction("the cards are not dealt yet")
        if seat in self.shown:
            raise IllegalAction("you have shown already")
        assert self.deadline is not None
        if action == "show" and at > self.deadline:
            raise TooLate(f"time ran out at {self.deadline}; only the timeout remains")
        if action == "timeout" and at < self.deadline:
            raise TooEarly(f"the timeout is at {self.deadline}")
        self.shown.append(seat)
        events = [Event(action, {"seat": seat})]
        if len(self.shown) == self._seats:
            self._finish(events)
        return events

    def _deal(self, deal: Deal, at: int) -> list[Event]:
        if self.cards or self._result is not None:
            raise IllegalAction("the cards are already dealt")
        codes = {card.code for card in deal.deck if not card.is_joker and card.copy in (0, 1)}
        if len(deal.deck) != 52 or len(codes) != 52:
            raise InvalidCards("a deal must hold exactly one pack of 52 cards, each once")
        deck = [_SHOE[card.code] for card in deal.deck]
        self.cards = dict(zip(range(1, self._seats + 1), deck, strict=False))
        self.rest = deck[self._seats :]
        self.deadline = at + SHOW_MS
        events = [Event("deal", {"seats": self._seats, "stake": self.stake})]
        for seat, card in self.cards.items():
            events.append(Event("card", {"cards": [str(card)]}, to=frozenset({seat})))
        return events

    def _finish(self, events: list[Event]) -> None:
        winner = max(self.cards, key=lambda seat: strength(self.cards[seat]))
        losers = [seat for seat in self.cards if seat != winner]
        won = self.stake * len(losers)
        self._result = Result(
            points={s: won if s == winner else -self.stake for s in self.cards},
            winners=(winner,),
            postings=(
                *(Posting(f"seat:{s}", -self.stake) for s in losers),
                Posting(f"seat:{winner}", won),
            ),
            detail={"cards": {str(s): str(card) for s, card in self.cards.items()}},
        )
        self.deadline = None
        events.append(Event("game_over", self._result.to_json()))

    def census(self) -> dict[str, list[Card]]:
        if not self.cards:
            return {}
        place = "shown" if self._result is not None else "hand"
        return {"out": list(self.rest)} | {f"{place}:{s}": [c] for s, c in self.cards.items()}

    def view(self, seat: int | None) -> JSON:
        over = self._result is not None
        data: JSON = {
            "game": NAME,
            "viewer": seat,
            "phase": "over" if over else "show" if self.cards else "start",
            "stake": self.stake,
            "awaited": [
                {"seat": a.seat, "kind": a.kind, "deadline": a.deadline} for a in self.awaited()
            ],
            "seats": [
                {"seat": s, "shown": s in self.shown, "card": str(self.cards[s]) if over else None}
                for s in range(1, self._seats + 1)
            ],
            "result": None if self._result is None else self._result.to_json(),
        }
        if seat is not None and seat != HOUSE:
            data["hand"] = [str(self.cards[seat])] if seat in self.cards else []
        return data


# --- the bot (bots layer), the rooms (economy), the text, the tally (sim), the terminal ------


class HighCardBot:
    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: dict[str, Any]) -> str | None:
        mine = any(a["seat"] == view["viewer"] for a in view["awaited"])
        return "show" if view["phase"] == "show" and mine else None


def _room(stake: int, seats: int) -> Room:
    return Room(key=f"{NAME}-{stake}-{seats}p", game=NAME, title="High card",
                stake=f"{stake} a seat", seats=seats, config={"stake": stake},
                buy_in=20 * stake, min_stack=3 * stake)  # fmt: skip


ROOMS = (_room(1, 2), practice(_room(1, 2)))


class HighCardText(GameText[Mapping[str, Any]]):
    def config_parts(self, config: Mapping[str, Any], seats: int) -> list[str]:
        return [f"{seats} seats", f"stake {config['stake']}"]

    def note(self, event: Event) -> str | None:
        return f"seat {event.data['seat']} shows" if event.kind in ("show", "timeout") else None

    def ending_lines(self, result: Result) -> list[str]:
        return [f"cards: {', '.join(f'p{s} {c}' for s, c in result.detail['cards'].items())}"]


class HighCardTally(Tally):
    def __init__(self, seats: int) -> None:
        super().__init__(seats)
        self.points = dict.fromkeys(range(1, seats + 1), 0)
        self.wins = dict.fromkeys(range(1, seats + 1), 0)

    def setup(self, *, profile: str, mode: str, options: Mapping[str, Any]) -> JSON:
        if profile or mode != "points":
            raise ValueError("high card has no profiles and no modes")
        return HighCard(self.seats, int(options.get("stake", 1))).config_json()

    def count(self, events: list[Event]) -> None:
        for event in events:
            self.timeouts += event.kind == "timeout"
            if event.kind == "game_over":
                self.deals += 1
                self.matches += 1
                self.wins[event.data["winners"][0]] += 1
                for seat, points in event.data["points"].items():
                    self.points[int(seat)] += points

    def figures(self, report: SimReport) -> dict[str, Any]:
        return {"game": report.game, "games": self.deals, "points": dict(self.points),
                "wins": dict(self.wins), "violations": list(self.violations)}  # fmt: skip

    def lines(self, report: SimReport) -> list[str]:
        return [f"simulate {report.game}, {report.players} bots: {self.deals} games",
                "  wins " + " ".join(f"p{s} {n}" for s, n in self.wins.items())]  # fmt: skip


class HighCardTable(TerminalBase[HighCard, Mapping[str, Any]]):
    help_text: ClassVar[str] = "s (or show): turn your card over; q: leave"

    def __init__(self, settings: PlayRequest, **kwargs: Any) -> None:
        super().__init__(settings, bot_factory=house_bots(NAME), **kwargs)
        self.game = HighCard(settings.players)

    def run(self) -> int:
        fair = new_fair_deal(self.client_seed, 0)
        self._apply(HOUSE, "deal", Deal.of_fair(fair, 1, 0))
        while not self.game.over:
            seat = self.game.awaited()[0].seat
            self._human() if seat == HUMAN else self._bot(seat)
        return 0

    def _fallback(self, seat: int) -> str:
        return "show"

    def _narrate(self, actor: int, action: str, events: Sequence[Event]) -> None:
        for event in events:
            if event.kind == "game_over":
                cards = event.data["detail"]["cards"]
                self.say(", ".join(f"{self.who(int(s))}: {c}" for s, c in cards.items()))
                self.say(f"{self.who(event.data['winners'][0])} wins")

    def render(self, view: JSON) -> str:
        return f"Your card: {' '.join(view['hand'])}"

    def _prompt(self, view: JSON) -> str:
        return "show? "

    def _command(self, command: str, view: JSON) -> bool:
        return command.lower() in ("s", "show") and self._attempt("show")


def start(request: PlayRequest, out: TextIO) -> Callable[[], int]:
    if not 2 <= request.players <= 4:
        raise ValueError("high card seats 2 to 4 players")
    return lambda: HighCardTable(request, out=out, ask=input, colour=False, clock=None).run()


PLUGIN = GamePlugin(
    name=NAME,
    title="High card",
    engine=HighCard,
    bot=HighCardBot,
    rooms=ROOMS,
    terminal=f"{__name__}:start",
    tally=f"{__name__}:HighCardTally",
    text=f"{__name__}:HighCardText",
    order=90,
)


# --- the tests ---------------------------------------------------------------------------------


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[GamePlugin]:
    """High card in the catalog: a folder whose plugin module is this module's ``PLUGIN``."""
    with installed(tmp_path / "games", NAME, f"from {__name__} import PLUGIN  # noqa: F401\n"):
        yield catalog.get(NAME)


def test_the_catalog_finds_it_and_forgets_it(tmp_path: Path) -> None:
    assert NAME not in catalog.names()
    with installed(tmp_path, NAME, f"from {__name__} import PLUGIN  # noqa: F401\n"):
        assert catalog.names()[-1] == NAME
        assert catalog.get(NAME).engine is HighCard
        assert [room.key for room in catalog.rooms()][-3:] == [
            "highcard-1-2p",
            "practice-highcard-1-2p",
            "gold-highcard-1-2p",
        ]
    assert NAME not in catalog.names()


def test_the_rules() -> None:
    """Seat 2 holds the ace of spades: it wins 1 from each other seat; the others' cards stay
    hidden until everyone has shown."""
    game = HighCard(3)
    deck = [_SHOE[12], _SHOE[0], *_SHOE[1:12], *_SHOE[13:]]  # KS, AS, the rest
    game.apply(HOUSE, "deal", 0, deal=Deal(tuple(deck)))
    assert game.view(1)["hand"] == ["KS"] and game.view(2)["hand"] == ["AS"]
    assert all(entry["card"] is None for entry in game.view(1)["seats"])
    game.apply(2, "show", 10)
    with pytest.raises(IllegalAction):
        game.apply(2, "show", 11)
    with pytest.raises(TooEarly):
        game.apply(3, "timeout", 12)
    game.apply(1, "show", 13)
    assert game.view(3)["seats"][0]["card"] is None
    game.apply(3, "timeout", SHOW_MS)
    assert game.result is not None
    assert dict(game.result.points) == {1: -1, 2: 2, 3: -1}
    assert [entry["card"] for entry in game.view(None)["seats"]] == ["KS", "AS", deck[2].__str__()]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_conformance_suite_passes_it(toy: GamePlugin, seats: int) -> None:
    report = run_conformance(
        lambda seed: HighCard(seats, stake=1 + seed % 3),
        lambda seat, seed: toy.bot(seed * 10 + seat),
        range(40),
        timeouts=0.2,
    )
    assert report.games == 40
    assert report.refused > 0 and report.replays >= 40
    assert report.events["game_over"] == 40 and report.events["timeout"] > 0
    assert report.probes > 0


def test_the_simulator_plays_it(toy: GamePlugin) -> None:
    report = simulate(NAME, profile=None, players=3, deals=60, seed=5)
    assert report.violations == []
    assert report.games == 60 and sum(report.wins.values()) == 60
    assert sum(report.points.values()) == 0


def test_rummyhall_simulate_and_replay_run_it(
    toy: GamePlugin, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["simulate", "--game", NAME, "--players", "4", "--deals", "25"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"simulate {NAME}, 4 bots: 25 games") and "violations: none" in out
    game = HighCard(2)
    game.apply(HOUSE, "deal", 0, deal=Deal.of_fair(new_fair_deal("toy", 1), 1, 0))
    game.apply(1, "show", 5)
    game.apply(2, "timeout", SHOW_MS)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    assert cli.main(["replay", str(path), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "stake 1" in out and "seat 2 shows" in out and "cards: p1 " in out


def test_rummyhall_play_runs_its_terminal_table(toy: GamePlugin) -> None:
    out = io.StringIO()
    request = PlayRequest(players=3, seed=1, name="You", record=None, client_seed="x")
    assert callable(toy.play_entry()(request, out))
    with pytest.raises(ValueError, match="2 to 4"):
        toy.play_entry()(PlayRequest(5, 1, "You", None, None), out)
    table = HighCardTable(request, out=out, ask=lambda prompt: "show", colour=False, clock=None)
    assert table.run() == 0 and table.game.over and " wins" in out.getvalue()
    assert replay_ok(table.game)


def replay_ok(game: Game) -> bool:
    again = replay(json.loads(json.dumps(game.record())))
    return again.view(None) == game.view(None) and again.result == game.result


async def test_the_server_plays_it(toy: GamePlugin, db_url: str, tmp_path: Path) -> None:
    from test_server_games import play_one_game

    from server_kit import check_flows, fast_settings, running

    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings) as server:
        await play_one_game(server.url, "highcard-1-2p", NAME, seed=3)
    report = await audit_database(db_url)
    assert report.problems == []
    assert await check_flows(db_url) == 1  # who paid whom, as the record says


def test_the_catalog_wide_tests_take_it_in(toy: GamePlugin) -> None:
    """The tests that walk the catalog see the toy too: the conformance run at its rooms' tables
    passes, and the completeness check fails, by name, for what a test game leaves out (a web
    view module, golden records, a conformance slice of its own)."""
    import test_conformance
    import test_game_completeness

    test_conformance.test_every_game_conforms_at_its_rooms_tables(NAME)
    with pytest.raises(AssertionError, match=f"{NAME}: no web view at js/games/{NAME}.js"):
        test_game_completeness.test_every_game_is_complete(NAME)
