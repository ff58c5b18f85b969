"""``rummyhall.sim.simulate`` and the invariants it checks (rummyhall.games.invariants)."""

from __future__ import annotations

import gc
import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from rummyhall import catalog
from rummyhall.bots import Bot
from rummyhall.cards import Card, parse, parse_physical, shoe
from rummyhall.games.indian13.bot import Indian13Bot
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.indian13.tally import Indian13Tally
from rummyhall.games.invariants import (
    Invariants,
    allowed,
    check_cards,
    check_events,
    check_postings,
    check_view,
    check_views,
    seen_by,
)
from rummyhall.games.protocol import JSON, Deal, Event, Posting
from rummyhall.shuffle import FairDeal
from rummyhall.sim import FairHouse, SimReport, simulate

# --- simulate --------------------------------------------------------------------------------


def test_a_small_run_keeps_every_invariant_with_plausible_results() -> None:
    report = simulate(deals=12, seed=2)
    assert report.violations == [] and report.violation_count == 0
    assert report.deals == report.matches == 12
    assert report.checked == report.actions > 12 * 8
    assert sum(report.wins.values()) == report.deals
    assert sum(report.match_wins.values()) == report.matches
    # Every deal ends with a valid declaration or with one player left.
    assert report.declarations <= report.deals
    assert report.drops < 2 * report.deals
    for seat in range(1, 5):
        assert 0 <= report.points[seat] <= 80 * report.deals
    # Three losers each deal: between 2 and 80 points each, or a drop.
    total = sum(report.points.values())
    assert 3 * 2 * report.deals <= total <= 3 * 80 * report.deals
    assert report.deals_per_second > 0


def test_pools_play_whole_matches() -> None:
    report = simulate(profile="vengala", players=3, mode="pool101", deals=3, seed=4)
    assert report.violations == []
    assert report.matches >= 1 and report.deals >= 3
    assert sum(report.match_wins.values()) == report.matches
    # Someone reached 101 in every match.
    assert max(report.points.values()) >= 101


def test_the_report_as_json_and_text() -> None:
    report = simulate(players=2, deals=3, seed=1, checks=False)
    data = json.loads(json.dumps(report.to_json()))
    assert data["deals"] == 3 and data["checks"] is False and data["violations"] == []
    assert set(data["points"]) == {"1", "2"}
    assert data["deals_per_second"] > 0 and data["drops"] == report.drops
    text = report.summary()
    assert "deals/s" in text and "not checked" in text and "violations: none" in text


def test_same_seed_same_games() -> None:
    def outcome(report: SimReport) -> tuple[Any, ...]:
        return (report.actions, report.points, report.wins, report.drops)

    first = simulate(players=3, deals=6, seed=8, checks=False)
    assert outcome(simulate(players=3, deals=6, seed=8, checks=False)) == outcome(first)
    assert outcome(simulate(players=3, deals=6, seed=9, checks=False)) != outcome(first)


def test_fair_house_decks() -> None:
    house = FairHouse(7)
    game = Indian13(Indian13Config(seats=2))
    deal = house.deal(game, "deal")
    assert deal.fair is not None
    assert deal.fair.server_seed == hashlib.sha256(b"7:0").digest()
    assert list(deal.deck) == FairDeal(hashlib.sha256(b"7:0").digest(), "rummyhall-sim", 0).order(
        2, 1
    )
    assert house.deal(game, "deal").fair == house.fair(1)


def test_bad_requests() -> None:
    with pytest.raises(ValueError, match="no bot"):
        simulate(game="chess")
    with pytest.raises(ValueError):
        simulate(players=7)
    with pytest.raises(ValueError):
        simulate(deals=0)


# --- broken engines are caught ----------------------------------------------------------------


def test_a_leaky_view_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = Indian13.views

    def leaky(self: Indian13, seats: Sequence[int | None]) -> list[JSON]:
        views = [dict(view) for view in honest(self, seats)]
        for seat, data in zip(seats, views, strict=True):
            if seat == 1 and self.phase == "play":
                data["peek"] = [str(card) for card in self.players[2].hand]
        return views

    # (the views a room sends its watchers after a change, which the checks read)
    monkeypatch.setattr(Indian13, "views", leaky)
    report = simulate(players=3, deals=2, seed=3)
    assert report.violation_count > 0
    assert any("view of seat 1 leaks" in text for text in report.violations)


def test_a_spectator_leak_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = Indian13.views

    def leaky(self: Indian13, seats: Sequence[int | None]) -> list[JSON]:
        views = [dict(view) for view in honest(self, seats)]
        for seat, data in zip(seats, views, strict=True):
            if seat is None and self.stock:
                data["next"] = str(self.stock[0])
        return views

    monkeypatch.setattr(Indian13, "views", leaky)
    report = simulate(players=2, deals=1, seed=3)
    assert any("view of spectators leaks" in text for text in report.violations)


def test_a_lost_card_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = Indian13.census

    def losing(self: Indian13) -> dict[str, list[Card]]:
        places = honest(self)
        if places.get("open"):
            places["open"] = places["open"][1:]
        return places

    monkeypatch.setattr(Indian13, "census", losing)
    report = simulate(players=2, deals=1, seed=3)
    assert any("is nowhere" in text for text in report.violations)


def test_a_private_event_sent_to_everyone_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = Indian13._draw

    def shouting(self: Indian13, seat: int, rest: str, at: int) -> list[Event]:
        return [Event(e.kind, e.data, None, e.postings) for e in honest(self, seat, rest, at)]

    monkeypatch.setitem(Indian13._HANDLERS, "draw", shouting)
    report = simulate(players=2, deals=2, seed=3)
    assert any("event drew shows" in text for text in report.violations)


def test_unbalanced_postings_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = Indian13._discard

    def minting(self: Indian13, seat: int, rest: str, at: int) -> list[Event]:
        events = honest(self, seat, rest, at)
        return [*events, Event("bonus", postings=(Posting(f"seat:{seat}", 1),))]

    monkeypatch.setitem(Indian13._HANDLERS, "discard", minting)
    report = simulate(players=2, deals=1, seed=3)
    assert any("postings sum to 1" in text for text in report.violations)


# --- the checks one by one ----------------------------------------------------------------


def cards(text: str) -> list[Card]:
    return [parse_physical(token) for token in text.split()]


def test_seen_by() -> None:
    assert seen_by("hand:2", 2) and not seen_by("hand:2", 3) and not seen_by("hand:2", None)
    assert seen_by("finish:1", 1) and not seen_by("finish:1", 2)
    assert not seen_by("closed", 1) and not seen_by("out", None)
    assert seen_by("open", None) and seen_by("shown:3", 1) and seen_by("toss", 2)


def test_seen_by_seats_that_saw_the_cards_too() -> None:
    # After a sideshow between seats 2 and 5: seat 2's hand, and a card of it now closed.
    assert seen_by("hand:2@5", 2) and seen_by("hand:2@5", 5)
    assert not seen_by("hand:2@5", 3) and not seen_by("hand:2@5", None)
    assert seen_by("closed@2,5", 5) and seen_by("closed@2,5", 2)
    assert not seen_by("closed@2,5", 1) and not seen_by("closed@12", 1)
    census = {"hand:2@5": cards("AS#1 KS#1"), "closed@2,5": cards("QS#1"), "hand:5": cards("2H#1")}
    assert allowed(census, 5) == Counter({"AS": 1, "KS": 1, "QS": 1, "2H": 1})
    assert allowed(census, 3) == Counter()


def test_check_cards() -> None:
    whole = cards("AS#1 AS#2 KH#1")
    assert check_cards({"hand:1": cards("AS#1"), "open": cards("AS#2 KH#1")}, whole) == []
    assert check_cards({}, whole) == []  # before the first deal
    problems = check_cards({"hand:1": cards("AS#1 AS#1"), "open": cards("QC#1")}, whole)
    assert any("AS#1 is in 2 places" in p for p in problems)
    assert any("AS#2 is nowhere" in p for p in problems)
    assert any("QC#1 at open is not in the shoe" in p for p in problems)


def test_check_view_counts_copies() -> None:
    census = {"hand:1": cards("7H#1 KS#1"), "hand:2": cards("7H#2 QS#1"), "open": cards("2C#1")}
    mine = allowed(census, 1)
    assert mine == Counter({"7H": 1, "KS": 1, "2C": 1})
    honest = {"hand": ["7H", "KS"], "arrangement": [["7H", "KS"]], "open": ["2C"]}
    assert check_view(honest, 1, mine) == []
    # A second 7H shown anywhere is the other seat's.
    assert check_view({**honest, "seats": [{"seat": 2, "shown": [["7H"]]}]}, 1, mine)
    assert check_view({**honest, "arrangement": [["7H", "7H"]]}, 1, mine)
    # The past (history, the cut...) is not counted.
    assert check_view({**honest, "history": [{"shown": ["QS"]}], "cut": "QS"}, 1, mine) == []


class _ViewsOneByOne:
    """A made-up table's views of several seats, each built alone (as ``Game.views`` does by
    default); the table gives ``view``."""

    def view(self, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def views(self, seats: Sequence[int | None]) -> list[dict[str, Any]]:
        return [self.view(seat) for seat in seats]


def test_check_views_reads_a_seats_own_entry_as_its_own_in_every_view() -> None:
    # The same list of seats in every view, seat 1's entry showing its card: a repeat of seat 1's
    # own hand in its view, a leak in the others'.
    class Table(_ViewsOneByOne):
        seats = 2

        def view(self, seat: int | None) -> dict[str, Any]:
            data: dict[str, Any] = {"seats": [{"seat": 1, "shown": [["7H"]]}, {"seat": 2}]}
            if seat is not None:
                data["hand"] = ["7H"] if seat == 1 else ["KS"]
            return data

    census = {"hand:1": cards("7H#1"), "hand:2": cards("KS#1")}
    assert check_views(Table(), census) == [  # type: ignore[arg-type]
        "view of spectators leaks 1 x 7H (may see 0)",
        "view of seat 2 leaks 1 x 7H (may see 0)",
    ]


def test_check_views_and_events_on_a_real_game() -> None:
    game = Indian13(Indian13Config(seats=3))
    whole = shoe(*game.shoe())
    house = FairHouse(1)
    events = game.apply(0, "deal", 0, deal=house.deal(game, "deal"))
    census = game.census()
    assert check_cards(census, whole) == []
    assert check_views(game, census) == []
    before = {seat: Counter[str]() for seat in (None, 1, 2, 3)}
    after = {seat: allowed(census, seat) for seat in (None, 1, 2, 3)}
    assert check_events(events, before, after) == []
    # A hand event sent to everyone is a leak.
    hand = next(event for event in events if event.kind == "hand")
    problems = check_events([Event("hand", hand.data)], before, after)
    assert problems and "spectators" in problems[0]


def test_check_postings() -> None:
    good = Event("pay", postings=(Posting("seat:1", -5), Posting("pot", 5)))
    bad = Event("pay", postings=(Posting("seat:1", -5),))
    assert check_postings([good]) == []
    assert check_postings([good, bad]) == ["event pay: postings sum to -5, not 0"]


def test_census_of_a_deal() -> None:
    game = Indian13(Indian13Config(seats=2))
    assert game.census() == {}
    deck = FairHouse(5).deal(game, "deal")
    game.apply(0, "deal", 0, deal=deck)
    census = game.census()
    assert len(census["hand:1"]) == len(census["hand:2"]) == 13
    assert len(census["open"]) == 1 and len(census["cut"]) == 1
    assert census["cut"][0] == parse(game.view(None)["cut"])
    toss = [parse(entry["card"]) for entry in game.view(None)["toss"]]
    assert sorted(map(str, census["toss"])) == sorted(map(str, toss))
    assert check_cards(census, shoe(2, 1)) == []


def test_invariants_keep_what_seats_saw() -> None:
    game = Indian13(Indian13Config(seats=2))
    checker = Invariants(game, shoe(*game.shoe()))
    deal = Deal.of_fair(FairHouse(6).fair(0), *game.shoe())
    assert checker.check(game.apply(0, "deal", 0, deal=deal)) == []
    seat = game.turn
    assert seat is not None
    assert checker.check(game.apply(seat, "draw open", 1000)) == []  # public before
    assert checker.checks == 2


def test_check_views_adds_a_seats_own_cards_to_the_public_ones_it_repeats() -> None:
    # The open pile is public and every view shows it: a seat's own field showing that card again
    # shows two copies of it, where the seat may see one.
    class Table(_ViewsOneByOne):
        seats = 2

        def view(self, seat: int | None) -> dict[str, Any]:
            data: dict[str, Any] = {"open": ["7H"], "seats": [{"seat": 1}, {"seat": 2}]}
            if seat is not None:
                data["hand"] = ["KS"] if seat == 1 else ["QS", "7H"]
            return data

    census = {"open": cards("7H#1"), "hand:1": cards("KS#1"), "hand:2": cards("QS#1")}
    assert check_views(Table(), census) == [  # type: ignore[arg-type]
        "view of seat 2 leaks 2 x 7H (may see 1)",
    ]


def test_check_views_walks_a_seats_own_entry_among_seats_equal_to_the_spectators() -> None:
    # The seats' list differs in one entry only (seat 1's own, its cards shown): the other entries
    # are the spectators', and seat 1's entry repeats its hand, checked on its own.
    class Table(_ViewsOneByOne):
        seats = 2

        def view(self, seat: int | None) -> dict[str, Any]:
            own = {"seat": 1, "shown": [["KS", "KS"]] if seat == 1 else None}
            data: dict[str, Any] = {"seats": [own, {"seat": 2, "shown": None}]}
            if seat is not None:
                data["hand"] = ["KS"] if seat == 1 else ["QS"]
            return data

    census = {"hand:1": cards("KS#1"), "hand:2": cards("QS#1")}
    assert check_views(Table(), census) == [  # type: ignore[arg-type]
        "view of seat 1 leaks at seats[0].shown: 2 x KS (may see 1)",
    ]


def test_the_runner_s_bot_acts_on_the_view_the_checks_built() -> None:
    game = Indian13(Indian13Config(seats=2))
    checker = Invariants(game, shoe(*game.shoe()))
    deal = Deal.of_fair(FairHouse(6).fair(0), *game.shoe())
    assert checker.check(game.apply(0, "deal", 0, deal=deal)) == []
    seat = game.turn
    assert seat is not None
    view = checker.take_view(seat)
    assert view == game.view(seat)
    assert checker.take_view(seat) is not view  # handed out once, then built afresh


def test_the_heap_before_a_run_is_frozen_while_it_runs_and_handed_back_after() -> None:
    frozen_during: list[int] = []

    class Watching(Indian13Bot):
        def act(self, view: Any) -> str | None:
            frozen_during.append(gc.get_freeze_count())
            return super().act(view)

    def bots(seat: int, seed: int) -> Bot:
        # (one seat looks: gc.get_freeze_count walks everything frozen, 20 ms a call once the
        # suite's heap has grown to a million objects)
        return Watching(seed) if seat == 1 else Indian13Bot(seed)

    assert gc.get_freeze_count() == 0
    simulate(game="indian13", deals=2, seed=3, checks=False, bots=bots)
    assert min(frozen_during) > 0
    assert gc.get_freeze_count() == 0
    # A caller's own frozen objects stay frozen, and the run leaves them so.
    gc.freeze()
    try:
        count = gc.get_freeze_count()
        simulate(game="indian13", deals=2, seed=3, checks=False)
        assert gc.get_freeze_count() == count
    finally:
        gc.unfreeze()


def frozen_at_each_table(deals: int) -> list[list[int]]:
    """How many objects were frozen whenever seat 1's bot acted, table by table (new bots each)."""
    tables: list[list[int]] = []

    class Watching(Indian13Bot):
        def __init__(self, seed: int) -> None:
            super().__init__(seed)
            self.counts: list[int] = []

        def act(self, view: Any) -> str | None:
            self.counts.append(gc.get_freeze_count())
            return super().act(view)

    def bots(seat: int, seed: int) -> Bot:
        if seat != 1:  # (one seat looks: see above)
            return Indian13Bot(seed)
        bot = Watching(seed)
        tables.append(bot.counts)
        return bot

    simulate(game="indian13", deals=deals, seed=3, checks=False, bots=bots)
    return tables


def test_what_each_table_leaves_is_frozen_when_the_game_makes_no_cycles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each table adds to the solver's and the bots' memos, which get frozen after it.
    first, _, last = frozen_at_each_table(3)
    assert last[0] > first[-1] > 0
    assert gc.get_freeze_count() == 0
    # A game that does not promise it is left to the collector: only the older heap is frozen
    # (some of it freed since).
    monkeypatch.setattr(Indian13Tally, "acyclic", False)
    first, _, last = frozen_at_each_table(3)
    assert last[-1] <= first[0]
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("checks", [False, True])
@pytest.mark.parametrize("game", sorted(catalog.names()))
def test_games_that_say_they_make_no_cycles_make_none(game: str, checks: bool) -> None:
    # What Tally.acyclic promises: a cycle among frozen objects would stay until the run ends.
    if not catalog.get(game).tally_class().acyclic:
        pytest.skip(f"{game} does not say so")
    simulate(game=game, deals=2, seed=4, checks=checks)  # imports, tables of the solver...
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    try:
        simulate(game=game, deals=6, seed=5, checks=checks)
        assert gc.collect() == 0
    finally:
        if collecting:
            gc.enable()


def test_the_rummy_games_make_no_cycles() -> None:
    assert catalog.get("indian13").tally_class().acyclic
    assert catalog.get("marriage21").tally_class().acyclic
