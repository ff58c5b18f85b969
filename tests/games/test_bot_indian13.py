"""The 13-card Indian Rummy bot: it plays from its seat's view only, and plays sensibly."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rummyhall.cards import Card, parse, parse_cards, shoe
from rummyhall.games.indian13 import bot as bot_module
from rummyhall.games.indian13.bot import Indian13Bot
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.protocol import HOUSE
from rummyhall.games.rummy import bot as rummy_bot_module
from rummyhall.games.rummy.bot import sequence_draws, solve
from rummyhall.melds import Wilds, arrange, check, get_profile
from rummyhall.sim import FairHouse, Runner, Tally, simulate
from scenarios import Table, stacked

# Declares with the 9C (as in tests/games/test_indian13.py).
W = "AD 2D 3D 4D 10C JC QC KD KS KC 8S 8H 8D"
# The rules page's first example: classic 23 points, requirement met.
A = "4H 5H 6H 9S 10S 7D QC QD QS KH 3C 8D 2S"
# A pure sequence and loose cards; no 7 and no 9 (the cut below is 9D).
P = "AS 2S 3S 5H 6H KD QC 10C 2D 4D 8C JS 10D"
# No pure sequence, no wild card (the cut below is AH), no two cards of a suit close together.
HOPELESS = "2S 5S 9S KS 3H 7H JH 4D 8D QD 6C 10C 2C"


def table(
    hands: list[str],
    cut: str,
    open_card: str,
    stock: str = "",
    *,
    profile: str = "classic",
    mode: str = "points",
) -> Table:
    seats = len(hands)
    config = Indian13Config(
        profile=profile, seats=seats, mode=mode, order=tuple(range(1, seats + 1))
    )
    game = Indian13(config)
    t = Table(game, [stacked(hands, cut, open_card, stock, decks=2, jokers=game.shoe()[1])])
    t.do("p0 deal @0")
    return t


def drawn(t: Table) -> str:
    return str(next(e.data["card"] for e in t.last if e.kind == "drew"))


def test_declares_a_declarable_hand() -> None:
    t = table([W, A], "7C", "2H", "9C")
    bot = Indian13Bot()
    draw = bot.act(t.view(1))  # W is complete already: any card will do
    assert draw in ("draw open", "draw closed")
    t.do(f"p1 {draw}")
    action = bot.act(t.view(1))
    assert action is not None and action.startswith("declare ")
    t.do(f"p1 {action}")
    assert t.game.view(None)["winner"] == 1
    assert t.seat(1)["how"] == "declared"


def test_takes_a_useful_open_card_and_leaves_a_useless_one() -> None:
    # 7H completes 5H 6H 7H: with AS 2S 3S the requirement is met and the penalty falls.
    t = table([P, A], "9D", "7H")
    assert Indian13Bot().act(t.view(1)) == "draw open"
    # KC only pairs with KD.
    t = table([P, A], "9D", "KC")
    assert Indian13Bot().act(t.view(1)) == "draw closed"


def test_takes_a_wild_open_card() -> None:
    t = table([P, A], "9D", "9H")  # every 9 is wild
    assert Indian13Bot().act(t.view(1)) == "draw open"


def test_respects_a_blocked_open_card() -> None:
    # Classic: a wild first open card is the first mover's only; after their drop, nobody's.
    t = table([P, A, "6D 6C JH 10H 5D 4S JD 3H 5C 7C 2H 9H AH"], "9D", "9H")
    t.do("p1 drop")
    view = t.view(2)
    assert view["open"][-1] == "9H" and not view["may_take_open"]
    bot = Indian13Bot()
    assert bot.act(view) == "draw closed"


def test_a_refused_action_is_never_sent_twice() -> None:
    t = table([P, A], "9D", "7H")
    bot = Indian13Bot()
    view = t.view(1)
    first = bot.act(view)
    second = bot.act(view)  # the same state again: the first answer was refused
    assert first == "draw open"
    assert second == "draw closed"
    answers = {first, second}
    while (answer := bot.act(view)) is not None:
        assert answer not in answers
        answers.add(answer)


def test_never_throws_a_wild_card_while_it_has_another_card() -> None:
    # JK and the 9s are wild; the bot has junk to throw instead.
    hand = "JK 9S 2C 5D KH QS JD 4C 8H 6S 3D 10H AC"
    t = table([hand, A], "9D", "KC", "9H")
    bot = Indian13Bot()
    t.do("p1 draw closed")  # draws the 9H, wild too
    action = bot.act(t.view(1))
    assert action is not None and action.startswith("discard ")
    assert action.split()[1] not in ("JK", "9S", "9H")


class Watcher:
    """Wraps a bot and records every discard with the hand it was made from."""

    def __init__(self, seed: int, seen: list[tuple[str, list[str], str]]) -> None:
        self.bot = Indian13Bot(seed=seed)
        self.seen = seen

    def act(self, view: dict[str, Any]) -> str | None:
        action = self.bot.act(view)
        if action is not None and action.startswith("discard "):
            self.seen.append((str(view["cut"]), list(view["hand"]), action.split()[1]))
        return action


def test_no_wild_discards_in_play() -> None:
    seen: list[tuple[str, list[str], str]] = []
    report = simulate(deals=15, seed=5, checks=False, bots=lambda seat, s: Watcher(s, seen))
    assert report.violation_count == 0
    assert len(seen) > 50
    profile = get_profile("indian13/classic")
    for cut, hand, thrown in seen:
        wild = Wilds.of(parse(cut), profile).codes
        if parse(thrown).code in wild:
            assert all(parse(card).code in wild for card in hand), (cut, hand, thrown)


def test_drops_a_hopeless_hand_at_the_first_turn() -> None:
    t = table([HOPELESS, A], "AH", "KC")
    cards = parse_cards(HOPELESS)
    assert sequence_draws(cards, Wilds.of(parse("AH"), get_profile("indian13/classic")).codes) == 0
    assert Indian13Bot().act(t.view(1)) == "drop"
    t.do("p1 drop")
    assert t.seat(1)["how"] == "first drop"


def test_keeps_a_hand_with_a_pure_sequence() -> None:
    t = table([P, A], "9D", "KC")
    assert Indian13Bot().act(t.view(1)) != "drop"


def test_no_drop_that_would_end_its_pool() -> None:
    t = table([HOPELESS, A], "AH", "KC", mode="pool101")
    view = t.view(1)
    assert Indian13Bot().act(view) == "drop"
    me = next(entry for entry in view["seats"] if entry["seat"] == 1)
    me["total"] = 90  # 90 + a first drop of 20 reaches 101
    assert Indian13Bot().act(view) == "draw closed"


def test_drops_are_a_minority() -> None:
    report = simulate(deals=40, seed=9, checks=False)
    assert 0 < report.drops < 0.5 * 4 * report.deals


def test_shows_its_best_groups() -> None:
    t = table([A, W], "7C", "2H", "KH 9C")
    t.do("p1 draw closed")
    t.do(f"p1 discard {drawn(t)}")  # seat 1 has had a turn: no deal show
    t.do("p2 draw closed")
    t.do("p2 declare 9C | AD 2D 3D 4D | 10C JC QC | KD KS KC | 8S 8H 8D")
    bot = Indian13Bot()
    view = t.view(1)
    action = bot.act(view)
    best = arrange(
        parse_cards(" ".join(view["hand"])), joker=parse("7C"), profile="indian13/classic"
    )
    assert action is not None and action.startswith("show ")
    shown = [parse_cards(group) for group in action.removeprefix("show ").split("|")]
    assert sorted(map(str, (c for g in shown for c in g))) == sorted(view["hand"])
    verdict = check(shown, joker=parse("7C"), profile="indian13/classic")
    assert verdict.score == best.penalty == 23
    t.do(f"p1 {action}")
    assert t.seat(1, viewer=1)["score"] == 23


def test_shows_a_complete_hand_for_two_points() -> None:
    t = table(["5S 6S 7S 8S JH QH JK 9C 9H 9S 3H 4H 5H", W], "7C", "2H", "KH 9C")
    t.do("p1 draw closed")
    t.do(f"p1 discard {drawn(t)}")
    t.do("p2 draw closed")
    t.do("p2 declare 9C | AD 2D 3D 4D | 10C JC QC | KD KS KC | 8S 8H 8D")
    action = Indian13Bot().act(t.view(1))
    assert action is not None
    t.do(f"p1 {action}")
    assert t.seat(1, viewer=1)["score"] == 2


def test_declares_loose_jokers_apart_in_vengala() -> None:
    hand = "4H 5H 6H 7H 9S 10S JS QS KC KD KS JK 7S"  # two spare wild cards
    t = table([hand, A], "7C", "2H", "3D", profile="vengala")
    bot = Indian13Bot()
    t.do("p1 draw closed")
    action = bot.act(t.view(1))
    assert action is not None and action.startswith("declare ")
    t.do(f"p1 {action}")
    assert t.game.view(None)["winner"] == 1


def test_rejoins_a_pool_when_allowed() -> None:
    t = table([HOPELESS, A], "AH", "KC", mode="pool101")
    view = t.view(1)
    view["phase"] = "between"
    view["pool"]["rejoin_open"] = True
    me = next(entry for entry in view["seats"] if entry["seat"] == 1)
    me["status"] = "eliminated"
    assert Indian13Bot().act(view) == "rejoin"
    view["pool"]["rejoin_open"] = False
    assert Indian13Bot().act(view) is None


def test_idle_when_nothing_is_asked() -> None:
    t = table([P, A], "9D", "KC")
    bot = Indian13Bot()
    assert bot.act(t.view(2)) is None  # not its turn
    assert bot.act(t.view(None)) is None  # a spectator's view has no hand


def test_works_from_views_only() -> None:
    engines = ("games.indian13.engine", "games.rummy.engine", "games.protocol", "RummyGame")
    for module in (bot_module, rummy_bot_module):
        # The file itself: a compiled module has no source for inspect to find.
        assert module.__file__ is not None
        name = module.__name__.rpartition(".")[2]
        source = Path(module.__file__).with_name(f"{name}.py").read_text(encoding="utf-8")
        for engine in (*engines, "Indian13(", ".apply(", ".census("):
            assert engine not in source, (module.__name__, engine)
    t = table([P, A], "9D", "7H")
    view = t.view(1)
    frozen = copy.deepcopy(view)
    plain = json.loads(json.dumps(view))
    assert Indian13Bot().act(MappingProxyType(view)) == Indian13Bot().act(plain) == "draw open"
    assert view == frozen  # the bot changes nothing in what it is given


def play_one(seed: int) -> list[str]:
    game = Indian13(Indian13Config(seats=4))
    bots = {seat: Indian13Bot(seed=seat) for seat in range(1, 5)}
    Runner(game, bots, FairHouse(seed), Tally(4)).run()
    return [f"{e['seat']} {e['action']}" for e in game.log if e["seat"] != HOUSE]


def test_is_deterministic() -> None:
    assert play_one(3) == play_one(3)
    assert play_one(3) != play_one(4)


def test_solve_memoises_per_hand() -> None:
    hand = P.split()
    first = solve("indian13/classic", "9D", hand)
    assert solve("indian13/classic", "9D", list(reversed(hand))) is first


def test_what_loose_cards_are_worth_for_later() -> None:
    # _worths counts through tables by card code; here, each card against every other one,
    # as Style says: copies, other suits of its rank, its suit one and two places away (the
    # ace at both ends).
    style = Indian13Bot().style
    rng = random.Random(3)
    naturals = shoe(2, 0)

    def places(card: Card) -> set[int]:
        return {1, 14} if card.rank == 1 else {card.rank}

    def gap(a: Card, b: Card) -> int:
        return min(abs(p - q) for p in places(a) for q in places(b))

    for _ in range(300):
        loose = rng.sample(naturals, rng.randint(1, 14))
        expected = []
        for i, card in enumerate(loose):
            others = loose[:i] + loose[i + 1 :]
            twins = sum(other == card for other in others)
            ranks = {other.suit for other in others if other.rank == card.rank} - {card.suit}
            suited = [other for other in others if other.suit == card.suit and other != card]
            expected.append(
                style.twin * twins
                + style.same_rank * len(ranks)
                + style.adjacent * sum(gap(card, other) == 1 for other in suited)
                + style.gapped * sum(gap(card, other) == 2 for other in suited)
            )
        assert rummy_bot_module._worths([card.code for card in loose], style) == expected, loose
