"""The conformance suite (tests/conformance.py) applied to 13-card Indian Rummy (both profiles,
2 to 6 players, points and pools), to 21-card Marriage Rummy (2 to 6 players) and to Rummy Patti
(2 to 6 players, short stacks, low caps, many timeouts). A quick seeded slice runs always;
``RUMMYHALL_SOAK=1`` (``make soak``) plays a much larger campaign."""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from conformance import Attempt, ConformanceReport, ExtraNoise, run_conformance
from rummyhall import catalog
from rummyhall.bots import Bot
from rummyhall.cards import shoe
from rummyhall.games.indian13.bot import Indian13Bot
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.indian13.views import Indian13View
from rummyhall.games.marriage21.bot import Marriage21Bot
from rummyhall.games.marriage21.engine import Marriage21
from rummyhall.games.marriage21.rules import Marriage21Config
from rummyhall.games.patti.bot import PattiBot
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.patti.views import PattiView
from rummyhall.games.protocol import Game
from rummyhall.games.rummy51.bot import Rummy51Bot
from rummyhall.games.rummy51.engine import Rummy51
from rummyhall.games.rummy51.rules import Rummy51Config
from scenarios import Table, stacked

SOAK = os.environ.get("RUMMYHALL_SOAK") == "1"

IN_DEAL = ("play", "reshuffle", "declare", "show")


def _split(cards: list[str], rng: random.Random) -> str:
    """``cards`` in random groups, as the notation writes them."""
    groups: list[list[str]] = []
    for card in cards:
        if not groups or rng.random() < 0.3:
            groups.append([])
        groups[-1].append(card)
    return " | ".join(" ".join(group) for group in groups)


def _not_held(hand: list[str], rng: random.Random) -> str:
    """A card the hand has no copy of."""
    names = sorted({str(card) for card in shoe(1, 1)} - set(hand))
    return rng.choice(names)


def indian13_noise(game: Game, rng: random.Random) -> list[Attempt]:
    """Attempts specific to indian13: random arrangements (accepted while the seat is in the
    deal), and cards the seat does not hold, discards before drawing, drops after drawing,
    blocked open cards, shows and rejoins out of place (all refused)."""
    seat = rng.randrange(1, game.seats + 1)
    view: dict[str, Any] = game.view(seat)
    hand: list[str] = list(view["hand"])
    me = next(entry for entry in view["seats"] if entry["seat"] == seat)
    attempts: list[Attempt] = []
    shuffled = hand[:]
    rng.shuffle(shuffled)
    in_deal = view["phase"] in IN_DEAL and me["status"] in ("playing", "showing")
    if in_deal and hand:
        attempts.append((seat, "group " + _split(shuffled, rng), True))
        attempts.append((seat, "group " + _split(shuffled[1:], rng), False))
        swapped = [_not_held(hand, rng), *shuffled[1:]]
        attempts.append((seat, "group " + _split(swapped, rng), False))
    else:
        attempts.append((seat, "group " + _split(shuffled or ["AS", "2S", "3S"], rng), False))
    mover = view["turn"] if view["phase"] == "play" else None
    if mover is not None:
        mine: dict[str, Any] = game.view(mover)
        cards: list[str] = list(mine["hand"])
        if mine["drawn"]:
            attempts.append((mover, f"discard {_not_held(cards, rng)}", False))
            attempts.append((mover, "drop", False))
            attempts.append((mover, "draw closed", False))
            finish, *rest = cards
            attempts.append((mover, f"declare {finish} | {_split(rest[1:], rng)}", False))
        else:
            attempts.append((mover, f"discard {rng.choice(cards)}", False))
            if not mine["may_take_open"]:
                attempts.append((mover, "draw open", False))
    awaited = {a["seat"] for a in view["awaited"]}
    if view["phase"] not in ("declare", "show") or seat not in awaited:
        attempts.append((seat, "show " + _split(shuffled or ["AS"], rng), False))
    if me["status"] != "eliminated" or not (view.get("pool") or {}).get("rejoin_open"):
        attempts.append((seat, "rejoin", False))
    return attempts


def _ends_a_deal(action: str) -> bool:
    """What a rummy :class:`Stubborn` holds back: a declaration or a drop."""
    return action.split(maxsplit=1)[0] in ("declare", "drop")


class Stubborn:
    """A bot that holds back the actions ``held`` names (by default, declaring and dropping)
    until it has seen the closed deck refilled, so that games run the stock dry."""

    def __init__(
        self,
        seed: int,
        make: Callable[..., Bot] = Indian13Bot,
        held: Callable[[str], bool] = _ends_a_deal,
    ) -> None:
        self.bot = make(seed=seed)
        self.held = held
        self.closed: int | None = None
        self.refilled = False

    def act(self, view: dict[str, Any]) -> str | None:
        closed = view.get("closed")
        if isinstance(closed, int):
            self.refilled |= self.closed is not None and closed > self.closed
            self.closed = closed
        action = self.bot.act(view)
        while not self.refilled and action is not None and self.held(action):
            action = self.bot.act(view)  # the bot never repeats itself: its next choice
        return action


def _conform(
    profile: str,
    seats: int,
    mode: str,
    seeds: range,
    *,
    stubborn: bool = False,
    timeouts: float = 0.03,
) -> ConformanceReport:
    def make_game(seed: int) -> Game:
        fee = 0 if mode == "points" else 10
        return Indian13(Indian13Config(profile=profile, seats=seats, mode=mode, entry_fee=fee))

    def make_bot(seat: int, seed: int) -> Bot:
        return Stubborn(seed * 10 + seat) if stubborn else Indian13Bot(seed=seed * 10 + seat)

    return run_conformance(
        make_game,
        make_bot,
        seeds,
        extra_noise=indian13_noise,
        timeouts=timeouts,
        view_type=Indian13View,
    )


# (profile, seats, mode, games, style): every table size of both profiles, points and both
# pools; "stubborn" bots run the closed deck dry, "sleepy" tables time out a lot (missed turns,
# removals, declarations and shows that run out of time).
SLICE = [
    ("classic", 2, "points", 30, ""),
    ("classic", 2, "points", 3, "stubborn"),
    ("classic", 3, "pool101", 3, ""),
    ("classic", 3, "points", 8, "sleepy"),
    ("classic", 4, "points", 25, ""),
    ("classic", 4, "pool201", 2, ""),
    ("classic", 5, "pool201", 2, ""),
    ("classic", 6, "points", 10, ""),
    ("classic", 6, "points", 2, "stubborn"),
    ("classic", 6, "pool101", 2, ""),
    ("vengala", 2, "points", 20, ""),
    ("vengala", 2, "pool201", 3, ""),
    ("vengala", 3, "points", 20, ""),
    ("vengala", 3, "pool101", 2, ""),
    ("vengala", 4, "points", 15, ""),
    ("vengala", 4, "points", 2, "stubborn"),
    ("vengala", 4, "pool101", 2, "sleepy"),
    ("vengala", 5, "points", 10, ""),
    ("vengala", 5, "pool201", 2, ""),
]

TOTALS: Counter[str] = Counter()


@pytest.mark.parametrize(("profile", "seats", "mode", "games", "style"), SLICE)
def test_indian13_conformance(profile: str, seats: int, mode: str, games: int, style: str) -> None:
    first = 1000 * seats + 100 * ("classic", "vengala").index(profile) + 10 * len(style)
    report = _conform(
        profile,
        seats,
        mode,
        range(first, first + games),
        stubborn=style == "stubborn",
        timeouts=0.3 if style == "sleepy" else 0.03,
    )
    assert report.games == games
    assert report.refused > 0
    assert report.replays > games - 1
    assert report.typed_views == report.actions > 0  # every state's views, typed
    assert report.typed_events > report.actions  # and every event
    TOTALS.update(report.events)
    TOTALS.update(f"code:{code}" for code in report.codes.elements())
    TOTALS["probes"] += report.probes
    TOTALS["noise_accepted"] += report.noise_accepted


# (seats, games, style) of 21-card Marriage: every table size; "stubborn" bots run the closed deck
# dry, "sleepy" tables time out a lot.
MARRIAGE_SLICE = [
    (2, 8, ""),
    (2, 3, "sleepy"),
    (3, 4, ""),
    (4, 4, ""),
    (2, 3, "stubborn"),
    (6, 2, "stubborn"),
    (5, 3, "sleepy"),
    (6, 3, ""),
]

MARRIAGE_TOTALS: Counter[str] = Counter()


@pytest.mark.parametrize(("seats", "games", "style"), MARRIAGE_SLICE)
def test_marriage21_conformance(seats: int, games: int, style: str) -> None:
    first = 7000 + 100 * seats + 10 * len(style)

    def make_bot(seat: int, seed: int) -> Bot:
        if style == "stubborn":
            return Stubborn(seed * 10 + seat, Marriage21Bot)
        return Marriage21Bot(seed=seed * 10 + seat)

    report = run_conformance(
        lambda seed: Marriage21(Marriage21Config(seats=seats)),
        make_bot,
        range(first, first + games),
        extra_noise=indian13_noise,
        timeouts=0.3 if style == "sleepy" else 0.03,
    )
    assert report.games == games
    assert report.typed_views == report.actions > 0
    assert report.typed_events > report.actions
    MARRIAGE_TOTALS.update(report.events)
    MARRIAGE_TOTALS.update(f"code:{code}" for code in report.codes.elements())


def test_the_marriage_slice_covers_the_rules() -> None:
    if not MARRIAGE_TOTALS:
        pytest.skip("runs after the Marriage conformance slice")
    kinds = (
        "toss",
        "deal",
        "drop",
        "declaration:valid",
        "declaration:wrong",
        "show",
        "missed",
        "removed",
        "timeout",
        "group",
        "reshuffle",
        "deal_end",
        "game_over",
    )
    assert [kind for kind in kinds if not MARRIAGE_TOTALS[kind]] == []


def test_the_slice_covers_the_rules() -> None:
    """The noise reaches the rare paths: timeouts, removals, wrong declarations, refills, every
    error code."""
    if not TOTALS:
        pytest.skip("runs after the conformance slice")
    kinds = (
        "toss",
        "deal",
        "drop",
        "declaration:valid",
        "declaration:wrong",
        "show",
        "missed",
        "removed",
        "timeout",
        "group",
        "reshuffle",
        "rejoin",
        "deal_end",
        "game_over",
    )
    missing = [kind for kind in kinds if not TOTALS[kind]]
    assert not missing
    codes = ("bad_action", "not_your_turn", "illegal_action", "invalid_cards", "unknown_seat")
    assert not [code for code in (*codes, "too_early") if not TOTALS[f"code:{code}"]]
    assert TOTALS["probes"] > 0
    assert TOTALS["noise_accepted"] > 0


@pytest.mark.skipif(not SOAK, reason="set RUMMYHALL_SOAK=1 for the long campaign")
@pytest.mark.parametrize("profile", ["classic", "vengala"])
@pytest.mark.parametrize("mode", ["points", "pool101", "pool201"])
def test_indian13_conformance_soak(profile: str, mode: str) -> None:
    top = 6 if profile == "classic" else 5
    for seats in range(2, top + 1):
        games = 40 if mode == "points" else 6
        first = 100_000 + 1000 * seats
        report = _conform(profile, seats, mode, range(first, first + games))
        assert report.games == games


def test_draw_open_from_an_empty_open_pile_is_refused() -> None:
    """Seat 1 takes the only open card and declares wrongly with it: the open pile is empty when
    seat 2's turn starts. Found by the conformance noise (the engine used to crash with an
    IndexError here); it must refuse."""
    a = "4H 5H 6H 9S 10S 7D QC QD QS KH 3C 8D 2S"
    w = "AD 2D 3D 4D 10C JC QC KD KS KC 8S 8H 8D"
    b = "2D 3D 4D KS KH KC 8H 8C 7S 3H 5C 9D 2S"
    game = Indian13(Indian13Config(seats=3, order=(1, 2, 3)))
    t = Table(game, [stacked([a, w, b], "7C", "2H")])
    t.play(
        """
        p0 deal @0
        p1 draw open
        p1 declare 2H | 4H 5H 6H 9S 10S 7D QC QD QS KH 3C 8D 2S
        """
    )
    assert game.view(2)["open"] == []
    t.do("p2 draw open ! illegal_action")


# --- Rummy Patti ------------------------------------------------------------------------------


def patti_noise(game: Game, rng: random.Random) -> list[Attempt]:
    """Attempts specific to patti, all refused: cards the mover does not hold, malformed
    exchanges and chaals, a 2x past the max chaal, a show or a sideshow with the wrong number of
    players still in, answers nobody asked for, the asker or the asked playing a turn during a
    sideshow, and moves by packed or sitting-out seats."""
    view: dict[str, Any] = game.view(None)
    attempts: list[Attempt] = []
    seats = {entry["seat"]: entry for entry in view["seats"]}
    active = [s for s in view["order"] if seats[s]["status"] == "playing"]
    for seat, entry in seats.items():
        if entry["status"] != "playing" and view["phase"] != "start":
            attempts.append((seat, rng.choice(("chaal", "pack", "show", "sideshow")), False))
    if view["phase"] == "play":
        mover = view["turn"]
        hand: list[str] = list(game.view(mover)["hand"])
        missing = rng.choice(sorted({str(c) for c in shoe(1, 0)} - set(hand)))
        card = rng.choice(hand)
        attempts += [
            (mover, f"exchange {rng.choice(('open', 'closed'))} {missing}", False),
            (mover, f"exchange sideways {card}", False),
            (mover, f"exchange open {card} 3x", False),
            (mover, "exchange open", False),
            (mover, rng.choice(("chaal 3x", "chaal double", "pack now", "show me")), False),
            (mover, rng.choice(("accept", "refuse")), False),
        ]
        if view["chaal_2x"] is None:
            attempts.append((mover, "chaal 2x", False))
        if len(active) != 2:
            attempts.append((mover, "show", False))
        if len(active) < 3:
            attempts.append((mover, "sideshow", False))
    elif view["phase"] == "sideshow":
        asker, asked = view["sideshow"]["asker"], view["sideshow"]["asked"]
        attempts += [
            (asker, rng.choice(("chaal", "pack", "accept")), False),
            (asked, rng.choice(("chaal", "pack", "sideshow", "accept now")), False),
        ]
    return attempts


def patti_config(seed: int, seats: int, style: str) -> PattiConfig:
    """A table for one conformance game: ``short`` stacks run seats out of chips (some cannot
    even pay the boot), ``capped`` tables have a low max chaal and pot limit, so that 2x stops
    being offered and pot limits end games."""
    rng = random.Random(seed)
    boot = rng.choice((1, 5, 10))
    first = rng.randrange(1, seats + 1)
    if style == "short":
        stacks = [boot * rng.choice((0, 2, 4, 8, 20, 40)) for _ in range(seats)]
        for seat in rng.sample(range(seats), 2):
            stacks[seat] = max(stacks[seat], 3 * boot)  # two seats can always play
        return PattiConfig(seats=seats, boot=boot, stacks=tuple(stacks), first=first)
    if style == "capped":
        return PattiConfig(
            seats=seats, boot=boot, max_chaal=4 * boot, pot_limit=40 * boot, first=first
        )
    return PattiConfig(seats=seats, boot=boot, first=first)


def _conform_patti(seats: int, seeds: range, style: str, timeouts: float) -> ConformanceReport:
    return run_conformance(
        lambda seed: Patti(patti_config(seed, seats, style)),
        lambda seat, seed: PattiBot(seed=seed * 10 + seat),
        seeds,
        extra_noise=patti_noise,
        timeouts=timeouts,
        random_moves=0.08,
        view_type=PattiView,
    )


# (seats, games, style): every table size; "short" stacks, "capped" chaals and pots, "sleepy"
# tables that time out a lot (auto-chaals, packs after two timeouts, refused sideshows).
PATTI_SLICE = [
    (2, 25, ""),
    (2, 10, "short"),
    (3, 20, ""),
    (3, 10, "sleepy"),
    (4, 20, "capped"),
    (4, 12, "short"),
    (5, 15, ""),
    (5, 10, "sleepy"),
    (6, 20, ""),
    (6, 12, "short"),
    (6, 12, "capped"),
]

PATTI_TOTALS: Counter[str] = Counter()


@pytest.mark.parametrize(("seats", "games", "style"), PATTI_SLICE)
def test_patti_conformance(seats: int, games: int, style: str) -> None:
    first = 50_000 + 1000 * seats + 100 * len(style)
    timeouts = 0.3 if style == "sleepy" else 0.03
    report = _conform_patti(seats, range(first, first + games), style, timeouts)
    assert report.games == games
    assert report.refused > 0
    assert report.replays > games - 1
    assert report.typed_views == report.actions > 0  # every state's views, typed
    # report.events also counts variants (``pack:chips``...) beside the kinds: not events.
    events = sum(count for kind, count in report.events.items() if ":" not in kind)
    assert report.typed_events == events > 0  # every event, typed
    PATTI_TOTALS.update(report.events)
    PATTI_TOTALS.update(f"code:{code}" for code in report.codes.elements())
    PATTI_TOTALS["probes"] += report.probes


def test_the_patti_slice_covers_the_rules() -> None:
    """The noise reaches the rare paths: every ending, every reason to pack, both sideshow
    answers and a timed-out one, both exchanges, and every error code (split pots are rare:
    tests/games/test_patti.py has them)."""
    if not PATTI_TOTALS:
        pytest.skip("runs after the Patti conformance slice")
    kinds = (
        "deal",
        "chaal",
        "exchange",
        "exchanged",
        "sideshow",
        "sideshow_accepted",
        "sideshow_refused",
        "sideshow_cards",
        "show",
        "showdown",
        "pack:packed",
        "pack:chips",
        "pack:timeouts",
        "timeout:chaal",
        "timeout:refuse",
        "game_over:last player",
        "game_over:show",
        "game_over:pot limit",
    )
    assert not [kind for kind in kinds if not PATTI_TOTALS[kind]]
    codes = ("bad_action", "not_your_turn", "illegal_action", "invalid_cards", "unknown_seat")
    assert not [code for code in (*codes, "too_early") if not PATTI_TOTALS[f"code:{code}"]]
    assert PATTI_TOTALS["probes"] > 0


@pytest.mark.skipif(not SOAK, reason="set RUMMYHALL_SOAK=1 for the long campaign")
@pytest.mark.parametrize("style", ["", "short", "capped", "sleepy"])
def test_patti_conformance_soak(style: str) -> None:
    for seats in range(2, 7):
        first = 900_000 + 1000 * seats + 100 * len(style)
        report = _conform_patti(
            seats, range(first, first + 60), style, 0.3 if style == "sleepy" else 0.03
        )
        assert report.games == 60


def rummy51_noise(game: Game, rng: random.Random) -> list[Attempt]:
    """Attempts specific to Rummy 51, all refused: cards the mover does not hold (to discard,
    open, lay off or swap), groups not on the table, a put-back with nothing taken, and anything
    laid down by a seat not to move."""
    view: dict[str, Any] = game.view(None)
    attempts: list[Attempt] = []
    mover = view["turn"] if view["phase"] == "play" else None
    seat = rng.randrange(1, game.seats + 1)
    if seat != mover:
        attempts.append((seat, "open 6S 7S 8S | 10D 10C 10H", False))
        attempts.append((seat, "add 1 7H", False))
    if mover is None:
        return attempts
    mine: dict[str, Any] = game.view(mover)
    hand: list[str] = list(mine["hand"])
    absent = _not_held(hand, rng)
    attempts.append((mover, f"discard {absent}", False))
    attempts.append((mover, f"open {absent} {absent} {absent}", False))
    attempts.append((mover, f"add {len(view['table']) + 1} {rng.choice(hand)}", False))
    attempts.append((mover, f"swap {len(view['table']) + 1} {rng.choice(hand)}", False))
    if not mine["must_open"]:
        attempts.append((mover, "return", False))
    if view["table"]:
        attempts.append((mover, f"add 1 {absent}", False))
    return attempts


def _lays(action: str) -> bool:
    """What a Rummy 51 :class:`Stubborn` (a "hoarder") holds back: laying cards down, and taking
    the discard."""
    return action.split(maxsplit=1)[0] in ("open", "meld", "add", "swap") or action == "draw open"


# (seats, games, style) of Rummy 51: every table size; "hoarder" tables run the stock dry,
# "sleepy" ones time out a lot.
RUMMY51_SLICE = [
    (2, 6, ""),
    (3, 3, "sleepy"),
    (4, 4, ""),
    (2, 1, "hoarder"),
    (5, 2, ""),
    (6, 2, "sleepy"),
]

RUMMY51_TOTALS: Counter[str] = Counter()


@pytest.mark.parametrize(("seats", "games", "style"), RUMMY51_SLICE)
def test_rummy51_conformance(seats: int, games: int, style: str) -> None:
    first = 8000 + 100 * seats + 10 * len(style)

    def make_bot(seat: int, seed: int) -> Bot:
        if style == "hoarder":
            return Stubborn(seed * 10 + seat, Rummy51Bot, _lays)
        return Rummy51Bot(seed=seed * 10 + seat)

    report = run_conformance(
        lambda seed: Rummy51(Rummy51Config(seats=seats, stake=10)),
        make_bot,
        range(first, first + games),
        extra_noise=rummy51_noise,
        timeouts=0.3 if style == "sleepy" else 0.03,
    )
    assert report.games == games
    assert report.typed_views == report.actions > 0
    assert report.typed_events > report.actions
    RUMMY51_TOTALS.update(report.events)
    RUMMY51_TOTALS.update(f"code:{code}" for code in report.codes.elements())


def test_the_rummy51_slice_covers_the_rules() -> None:
    if not RUMMY51_TOTALS:
        pytest.skip("runs after the Rummy 51 conformance slice")
    kinds = ("deal", "open", "meld", "add", "swap", "timeout", "reshuffle", "game_end")
    assert [kind for kind in kinds if not RUMMY51_TOTALS[kind]] == []


# --- every game of the catalog ----------------------------------------------------------------

NOISE: dict[str, ExtraNoise] = {
    "indian13": indian13_noise,
    "marriage21": indian13_noise,  # the rummy family's noise: the same actions and views
    "patti": patti_noise,
    "rummy51": rummy51_noise,
}
"""Each game's own noise (attempts its rules must refuse), by name; a game without runs with the
suite's generic noise only."""

SLICES: dict[str, Any] = {
    "indian13": test_indian13_conformance,
    "marriage21": test_marriage21_conformance,
    "patti": test_patti_conformance,
    "rummy51": test_rummy51_conformance,
}
"""The games with their own slice above (every table size, rule-specific styles), by name
(tests/games/test_game_completeness.py checks that every game of the catalog has one)."""


@pytest.mark.parametrize("name", catalog.names())
def test_every_game_conforms_at_its_rooms_tables(name: str) -> None:
    """Whatever the catalog holds: one seeded game at the table of each room of the game (its
    engine config as the server builds it, every seat holding the buy-in), with its own bot."""
    plugin = catalog.get(name)
    configs: list[dict[str, Any]] = []
    for room in plugin.rooms:
        config = room.game_config(1, {seat: room.buy_in for seat in range(1, room.seats + 1)})
        if config not in configs:
            configs.append(config)
    assert configs
    refused = 0
    for index, config in enumerate(configs):
        report = run_conformance(
            lambda seed, config=config: plugin.engine.create(config),
            lambda seat, seed: plugin.bot(seed * 10 + seat),
            range(700_000 + 10 * index, 700_000 + 10 * index + 1),
            extra_noise=NOISE.get(name),
        )
        assert report.games == 1 and report.replays >= 1, config
        refused += report.refused
    assert refused > 0
