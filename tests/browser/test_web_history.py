"""Hand history in the browser: after a finished game the history lists it, the replay viewer
steps through it to the end, and Verify recomputes the deal in the browser (js/fair.js, Web
Crypto) and says verified; the same check on a record whose seed was altered says mismatch.
js/fair.js is also checked against the worked example of docs/provably-fair.md, and its check of
refills of the closed deck against the Python derivation: a game with refills (served to the page
in place of the API's answers) verifies, a tampered refill shows as a mismatch, and an old record
whose refills are plain cards says they cannot be checked."""

from __future__ import annotations

import copy
import json
import re
import time
from typing import Any

from playwright.sync_api import Page, Route, expect
from test_refills import plain, play, refill_entries, two_player

from rummyhall.server.api import _replay_steps
from rummyhall.shuffle import FairDeal, refill_order
from rummyhall.sim import FairHouse

ROOM = "practice-patti-10-4p"  # guests play practice rooms
EXAMPLE = {
    "server_seed": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "client_seed": "player",
    "nonce": 0,
    "decks": 1,
    "jokers": 0,
    "commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
}
ZEROS_HASH = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
"""The SHA-256 of 32 zero bytes: the wrong commitment of the worked example."""
EXAMPLE_DECK = (
    "6D 6C 2D 7C 5H 4C 5S 3H 4S KC QD AH AD AS KD 6S 2H KS 9S 10S 7D JD JC 5C 9C 4D 6H 4H 8H "
    "10C QS 10D 8D 3C QH 3D JH JS 9H 7H 7S 8C 10H 2C QC AC KH 3S 2S 9D 5D 8S"
)


def test_fair_js_matches_the_worked_example(page: Page, play_as_guest: Any) -> None:
    play_as_guest(page)
    answer = page.evaluate(
        """async ([deal, zeros]) => {
            const fair = await import('/js/fair.js');
            const checked = await fair.verifyDeal(deal);
            const words = fair.randomWords(deal.server_seed, deal.client_seed, deal.nonce);
            const first = [await words.next(), await words.next()];
            const wrong = await fair.verifyDeal({...deal, commitment: zeros});
            const shoe = {...deal, client_seed: 'joué', nonce: 7, decks: 2, jokers: 1};
            return {ok: checked.commitmentOk, hash: checked.computedCommitment,
                    deck: checked.deck.join(' '), first, wrongOk: wrong.commitmentOk,
                    utf8: (await fair.deckOrder(shoe)).join(' ')};
        }""",
        [EXAMPLE, ZEROS_HASH],
    )
    assert answer["ok"] is True and answer["hash"] == EXAMPLE["commitment"]
    assert answer["deck"] == EXAMPLE_DECK
    assert answer["first"] == [0x2180CA97, 0x8BF5A0C8]  # block 0's first two words
    assert answer["wrongOk"] is False
    # a UTF-8 client seed and a two-deck shoe with jokers: the same deck as the Python side
    fair = FairDeal(bytes.fromhex(str(EXAMPLE["server_seed"])), "joué", 7)
    assert answer["utf8"] == " ".join(str(card) for card in fair.order(2, 1))


def finish_a_game(page: Page, page_api: Any) -> int:
    """Quick-seat at a Patti table with bots, pack on the first turn; the bots finish the game.
    Returns the finished hand's id."""
    answer = page_api(page, "POST", "/api/quick-seat", {"room": ROOM})
    assert answer["status"] == 200, answer
    page.goto(f"/#/table/{answer['body']['table']}")
    page.get_by_test_id("patti-centre").wait_for()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pack = page.get_by_test_id("action-pack")
        if pack.is_visible() and pack.is_enabled():
            pack.click()
        hands = page_api(page, "GET", "/api/hands")["body"]["hands"]
        if hands:
            return int(hands[0]["id"])
        page.wait_for_timeout(250)
    raise AssertionError("the game did not finish")


def test_history_replay_and_verify(
    page: Page, play_as_guest: Any, page_api: Any, screenshot: Any
) -> None:
    play_as_guest(page)
    hand_id = finish_a_game(page, page_api)

    # the history lists the game with its result
    page.get_by_test_id("nav-history").click()
    row = page.get_by_test_id(f"history-row-{hand_id}")
    expect(row).to_be_visible()
    expect(page.get_by_test_id(f"history-game-{hand_id}")).to_have_text("Rummy Patti")
    expect(page.get_by_test_id(f"history-result-{hand_id}")).to_have_text(
        re.compile(r"(Won|Lost) [+−][\d,]+ chips")
    )
    expect(page.get_by_test_id(f"history-date-{hand_id}")).not_to_be_empty()
    screenshot(page, "history")

    # the replay steps through the game as we saw it
    page.get_by_test_id(f"history-open-{hand_id}").click()
    expect(page.get_by_test_id("replay")).to_be_visible()
    replay = page_api(page, "GET", f"/api/hands/{hand_id}/replay")["body"]
    total = len(replay["steps"]) - 1
    step = page.get_by_test_id("replay-step")
    expect(step).to_have_text(f"0 / {total}")
    expect(page.get_by_test_id("replay-prev")).to_be_disabled()
    page.get_by_test_id("replay-next").click()
    expect(step).to_have_text(f"1 / {total}")
    expect(page.get_by_test_id("replay-action")).to_have_text("The house deals")
    dealt = replay["steps"][1]["view"]["hand"]
    shown = page.get_by_test_id("replay-hand").locator("[data-card]")
    expect(shown).to_have_count(3)
    assert sorted(str(c.get_attribute("data-card")) for c in shown.all()) == sorted(dealt)
    page.get_by_test_id("replay-play").click()
    expect(step).not_to_have_text(f"1 / {total}", timeout=5000)
    page.get_by_test_id("replay-play").click()  # pause
    page.get_by_test_id("replay").press("End")
    expect(step).to_have_text(f"{total} / {total}")
    expect(page.get_by_test_id("replay-next")).to_be_disabled()
    expect(page.get_by_test_id("replay-result")).to_contain_text("took the pot")
    # the other seats carry their players' names (bots filled them, and say so)
    for player in replay["players"]:
        if player["seat"] != replay["seat"]:
            seat = page.get_by_test_id(f"replay-seat-{player['seat']}")
            expect(seat.locator(".replay-seat-name")).to_contain_text(player["name"])
            expect(seat.locator(".badge-bot")).to_be_visible()

    # the fair panel and Verify
    record = page_api(page, "GET", f"/api/hands/{hand_id}")["body"]["record"]
    deal = record["actions"][0]["deal"]
    expect(page.get_by_test_id("fair-commitment")).to_have_text(deal["commitment"])
    expect(page.get_by_test_id("fair-server-seed")).to_have_text(deal["server_seed"])
    expect(page.get_by_test_id("fair-client-seed")).to_have_text(deal["client_seed"])
    expect(page.get_by_test_id("fair-nonce")).to_have_text(str(deal["nonce"]))
    page.get_by_test_id("fair-verify").click()
    result = page.get_by_test_id("fair-result")
    expect(result).to_have_attribute("data-ok", "true")
    expect(result).to_contain_text("Verified")
    screenshot(page, "replay")

    # the same check on a record whose seed was altered: mismatch (the commitment, the cards)
    outcome = page.evaluate(
        """async ([record, replay]) => {
            const fair = await import('/js/fair.js');
            // the game's deal order, from its view module (as the page's Verify finds it)
            const registry = await import('/js/games/registry.js');
            const { dealtCards } = await registry.gameView(record.game);
            const altered = structuredClone(record);
            const deal = altered.actions[0].deal;
            const flip = deal.server_seed.endsWith('0') ? '1' : '0';
            deal.server_seed = deal.server_seed.slice(0, -1) + flip;
            const bad = await fair.verifyRecord(altered, replay.steps, replay.seat, dealtCards);
            // a forged commitment that matches the altered seed still fails on the dealt cards
            deal.commitment = await fair.commitmentOf(deal.server_seed);
            const forged = await fair.verifyRecord(altered, replay.steps, replay.seat, dealtCards);
            const good = await fair.verifyRecord(record, replay.steps, replay.seat, dealtCards);
            return {bad: bad.ok, badProblems: bad.deals[0].problems, forged: forged.ok,
                    forgedProblems: forged.deals[0].problems, good: good.ok};
        }""",
        [record, replay],
    )
    assert outcome["good"] is True
    assert outcome["bad"] is False and any("commitment" in p for p in outcome["badProblems"])
    assert outcome["forged"] is False
    assert any("your cards" in p for p in outcome["forgedProblems"])
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_fair_js_refills_match_python(page: Page, play_as_guest: Any) -> None:
    play_as_guest(page)
    under = ["2H", "9C", "KD", "5S", "JK", "7H", "3D", "QS", "10C", "4H"]
    physical = ["7H#2", "7H#1", "JK#2", "AS#1", "KD#2", "QC#1"]
    answer = page.evaluate(
        """async ([deal, under, physical]) => {
            const fair = await import('/js/fair.js');
            const seed = deal.server_seed;
            let refused = '';
            try { await fair.refillOrder(seed, 'player', 0, 0, under); }
            catch (e) { refused = e.message; }
            return {
                one: (await fair.refillOrder(seed, 'player', 0, 1, under)).join(' '),
                two: (await fair.refillOrder(seed, 'player', 0, 2, under)).join(' '),
                utf8: (await fair.refillOrder(seed, 'joué:x', 7, 12, physical)).join(' '),
                refused,
            };
        }""",
        [EXAMPLE, under, physical],
    )
    seed = bytes.fromhex(str(EXAMPLE["server_seed"]))
    assert answer["one"] == "JK QS 7H 4H 5S KD 9C 10C 2H 3D"  # docs/provably-fair.md
    assert answer["one"] == " ".join(refill_order(seed, "player", 0, 1, under))
    assert answer["two"] == " ".join(refill_order(seed, "player", 0, 2, under))
    assert answer["utf8"] == " ".join(refill_order(seed, "joué:x", 7, 12, physical))
    assert "numbered 1, 2" in answer["refused"]


HAND_ID = 987654


def serve_hand(page: Page, record: dict[str, Any], seat: int = 1) -> None:
    """Answer the hand page's two requests with ``record`` (and its replay for ``seat``)."""
    replay = {
        "id": HAND_ID,
        "game": record["game"],
        "seat": seat,
        "config": record["config"],
        "result": record.get("result"),
        "players": [
            {"seat": 1, "name": "You", "bot": False},
            {"seat": 2, "name": "Bo", "bot": True},
        ],
        "steps": json.loads(json.dumps(_replay_steps(record, seat))),
    }
    answers = {
        f"/api/hands/{HAND_ID}": {"id": HAND_ID, "record": record},
        f"/api/hands/{HAND_ID}/replay": replay,
    }

    def answer(route: Route) -> None:
        path = "/" + route.request.url.split("/", 3)[3].split("?")[0]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answers[path]))

    page.unroute("**/api/hands/**")
    page.route("**/api/hands/**", answer)


def verify_hand(page: Page, record: dict[str, Any]) -> Any:
    serve_hand(page, record)
    page.goto("/#/")
    page.goto(f"/#/hand/{HAND_ID}")
    page.get_by_test_id("fair-verify").click()
    result = page.get_by_test_id("fair-result")
    expect(result).to_be_visible()
    return result


def test_verify_checks_the_refills_of_a_game(
    page: Page, play_as_guest: Any, screenshot: Any
) -> None:
    play_as_guest(page)
    record = json.loads(json.dumps(play(two_player(), FairHouse(3, "refills")).record()))
    (first, _), (last, _) = refill_entries(record)

    result = verify_hand(page, record)
    expect(result).to_have_attribute("data-ok", "true")
    expect(result).to_contain_text("Verified")
    expect(page.get_by_test_id("fair-refill-result")).to_have_text(
        "The open pile was shuffled into a new closed deck twice; each new closed deck is "
        "exactly the order the same committed seed gives those cards, so the server could not "
        "choose it."
    )
    expect(page.get_by_test_id("fair-refills")).to_have_text(
        f"2 (steps {first}, {last}), from the same seeds"
    )
    page.get_by_test_id("replay-slider").fill(str(first))
    expect(page.get_by_test_id("replay-action")).to_have_text(
        "The house shuffles the open pile into a new closed deck"
    )
    screenshot(page, "replay-refills")

    # The last refill's bottom two cards exchanged: that refill is a mismatch.
    tampered = copy.deepcopy(record)
    cards = tampered["actions"][last - 1]["deal"]["cards"].split()
    cards[-1], cards[-2] = cards[-2], cards[-1]
    tampered["actions"][last - 1]["deal"]["cards"] = " ".join(cards)
    result = verify_hand(page, tampered)
    expect(result).to_have_attribute("data-ok", "false")
    expect(result).to_contain_text("Mismatch")
    expect(result.locator("li")).to_have_text(
        [
            f"Refill 2 of the closed deck (step {last}): the new closed deck is not the order "
            "the seeds give the open pile's cards"
        ]
    )
    expect(page.get_by_test_id("fair-refill-result")).to_contain_text(
        f"the new deck at step {last} is not the order the committed seed gives"
    )

    # An old record, its refills stored as plain cards: the deal verifies, the refills are named.
    result = verify_hand(page, plain(record))
    expect(result).to_have_attribute("data-ok", "true")
    expect(page.get_by_test_id("fair-refill-result")).to_have_text(
        f"The reshuffle at steps {first}, {last} cannot be checked: it was recorded before "
        "refills came from the seeds."
    )
    assert page.js_errors == []  # type: ignore[attr-defined]
