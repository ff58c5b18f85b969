"""``rummyhall simulate`` at a Rummy Patti table (rummyhall.games.patti.tally.simulate_patti), and
the invariant checks catching what a broken Patti engine would leak or lose."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from rummyhall.cards import Card
from rummyhall.games.invariants import view_shape
from rummyhall.games.patti.engine import PATTI_VIEWS, Patti
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.patti.tally import simulate_patti
from rummyhall.games.protocol import JSON, Event, Posting
from rummyhall.sim import SimReport as PattiReport
from rummyhall.sim import simulate


def test_a_patti_session_keeps_every_invariant() -> None:
    report = simulate("patti", players=6, deals=20, seed=2)
    assert isinstance(report, PattiReport)
    assert report.violations == [] and report.violation_count == 0
    assert report.games == 20 and report.checked == report.actions
    assert sum(report.chips.values()) == 0  # chips won and lost balance
    assert sum(report.wins.values()) >= 20  # a shared pot counts for each winner
    endings = sum(n for kind, n in report.counts.items() if kind.startswith("end: "))
    assert endings == 20


def test_the_report_as_json_and_text() -> None:
    report = simulate_patti(players=3, games=5, seed=1, checks=False)
    data = json.loads(json.dumps(report.to_json()))
    assert data["games"] == 5 and data["checks"] is False and data["games_per_second"] > 0
    assert set(data["chips"]) == {"1", "2", "3"}
    text = report.summary()
    assert "simulate patti, 3 bots, boot 10" in text and "games/s" in text
    assert "endings" in text and "violations: none" in text


def test_same_seed_same_session() -> None:
    def outcome(report: PattiReport) -> tuple[object, ...]:
        return (report.actions, report.chips, report.wins, report.counts, report.rebuys)

    first = simulate_patti(players=4, games=30, seed=8, checks=False)
    assert outcome(simulate_patti(players=4, games=30, seed=8, checks=False)) == outcome(first)
    assert outcome(simulate_patti(players=4, games=30, seed=9, checks=False)) != outcome(first)


def test_short_stacks_buy_in_again() -> None:
    report = simulate_patti(players=4, games=60, seed=4, stack=60, checks=False)
    assert report.rebuys > 0 and report.counts.get("pack: chips", 0) > 0


def test_bad_requests() -> None:
    with pytest.raises(ValueError, match="no modes"):
        simulate("patti", mode="pool101")
    with pytest.raises(ValueError):
        simulate("patti", players=7)
    with pytest.raises(ValueError):
        simulate_patti(games=0)


def test_patti_has_its_own_view_shape() -> None:
    assert view_shape(Patti()) is PATTI_VIEWS
    assert "seen" in PATTI_VIEWS.repeats


# --- broken engines are caught ----------------------------------------------------------------


def test_sideshow_cards_shown_to_a_third_seat_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = Patti.views

    def leaky(self: Patti, seats: Sequence[int | None]) -> list[JSON]:
        views = [dict(view) for view in honest(self, seats)]
        for seat, data in zip(seats, views, strict=True):
            if seat is not None and seat > 0:
                # Every sideshow anyone saw, to every seat.
                data["seen"] = [entry for s in self.seen for entry in self.seen[s]]
        return views

    # (the views a room sends its watchers after a change, which the checks read)
    monkeypatch.setattr(Patti, "views", leaky)
    report = simulate_patti(players=6, games=10, seed=2)  # an accepted sideshow by game 8
    assert any("leaks at seen" in text for text in report.violations)


def _played_by(monkeypatch: pytest.MonkeyPatch, engine: type[Patti]) -> None:
    """Make simulate() deal its games with ``engine``, a broken subclass: where the engine is
    compiled (setup.py), its own calls to its methods do not see a patch of the class, only an
    override in a subclass."""

    def create(cls: type[Patti], config: JSON) -> Patti:
        return engine(PattiConfig.from_json(config))

    monkeypatch.setattr(Patti, "create", classmethod(create))


def test_a_sideshow_event_sent_to_everyone_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    class Shouting(Patti):
        def _compare(self, asker: int, asked: int) -> Event:
            event = super()._compare(asker, asked)
            return Event(event.kind, event.data, None, event.postings)

    _played_by(monkeypatch, Shouting)
    report = simulate_patti(players=6, games=10, seed=2)  # an accepted sideshow by game 8
    assert any("event sideshow_cards shows" in text for text in report.violations)


def test_a_census_that_forgets_the_sideshow_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the ``@`` seats, the two players' views show cards the census hides from them."""
    honest = Patti.census

    def forgetful(self: Patti) -> dict[str, list[Card]]:
        places: dict[str, list[Card]] = {}
        for name, held in honest(self).items():
            places.setdefault(name.partition("@")[0], []).extend(held)
        return places

    monkeypatch.setattr(Patti, "census", forgetful)
    report = simulate_patti(players=6, games=10, seed=2)  # an accepted sideshow by game 8
    assert any("leaks at seen" in text for text in report.violations)


def test_chips_out_of_nowhere_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    class Minting(Patti):
        def _pay(self, seat: int, amount: int) -> tuple[Posting, ...]:
            return (*super()._pay(seat, amount), Posting("house", 1))

    _played_by(monkeypatch, Minting)
    report = simulate_patti(players=3, games=3, seed=2)
    assert any("postings sum to 1" in text for text in report.violations)
