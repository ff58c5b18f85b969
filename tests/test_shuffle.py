"""Tests for the provably-fair shuffle (rummyhall.shuffle, docs/provably-fair.md)."""

from __future__ import annotations

import ast
import hashlib
import hmac
import math
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import NormalDist

import pytest

from rummyhall import shuffle
from rummyhall.cards import Card, format_cards, shoe
from rummyhall.cli import main
from rummyhall.shuffle import (
    FairDeal,
    commitment,
    deal_order,
    random_stream,
    refill_client_seed,
    refill_indices,
    refill_order,
    shuffled_indices,
    stream_message,
    stream_words,
    uniform_below,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "rummyhall"

SEED = bytes(range(32))  # 000102...1f
CLIENT = "player"


# --- an independent reference implementation, written from docs/provably-fair.md -----------------


def reference_indices(server_seed: bytes, client_seed: str, nonce: int, n: int) -> list[int]:
    """Fisher–Yates driven by HMAC-SHA256 blocks, spelled out without using the module."""
    block_number = 0
    block = b""
    offset = 32  # forces the first block to be computed

    def next_word() -> int:
        nonlocal block_number, block, offset
        if offset == 32:
            message = (client_seed + ":" + str(nonce) + ":" + str(block_number)).encode("utf-8")
            block = hmac.new(server_seed, message, hashlib.sha256).digest()
            block_number += 1
            offset = 0
        word = int.from_bytes(block[offset : offset + 4], "big")
        offset += 4
        return word

    a = list(range(n))
    i = n - 1
    while i >= 1:
        bound = i + 1
        threshold = (4294967296 // bound) * bound
        word = next_word()
        while word >= threshold:
            word = next_word()
        j = word % bound
        a[i], a[j] = a[j], a[i]
        i -= 1
    return a


def physical(cards: list[Card]) -> list[tuple[int, int]]:
    return sorted((card.code, card.copy) for card in cards)


# --- determinism and permutation -----------------------------------------------------------------


def test_same_inputs_give_the_same_order() -> None:
    first = deal_order(SEED, CLIENT, 3, decks=2, jokers=1)
    second = deal_order(SEED, CLIENT, 3, decks=2, jokers=1)
    assert [c.physical for c in first] == [c.physical for c in second]


def test_nonce_client_seed_and_server_seed_each_change_the_order() -> None:
    base = format_cards(deal_order(SEED, CLIENT, 0, decks=2, jokers=1))
    assert format_cards(deal_order(SEED, CLIENT, 1, decks=2, jokers=1)) != base
    assert format_cards(deal_order(SEED, CLIENT + "x", 0, decks=2, jokers=1)) != base
    assert format_cards(deal_order(bytes(32), CLIENT, 0, decks=2, jokers=1)) != base


@pytest.mark.parametrize(("decks", "jokers"), [(1, 0), (1, 2), (2, 1), (3, 2)])
@pytest.mark.parametrize("nonce", [0, 1, 99])
def test_every_order_is_a_permutation_of_the_shoe(decks: int, jokers: int, nonce: int) -> None:
    order = deal_order(SEED, CLIENT, nonce, decks=decks, jokers=jokers)
    assert physical(order) == physical(shoe(decks, jokers))
    assert len({card.physical for card in order}) == len(order)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 13, 53, 106, 162])
def test_shuffled_indices_is_a_permutation(n: int) -> None:
    assert sorted(shuffled_indices(SEED, CLIENT, 5, n)) == list(range(n))


def test_top_card_is_position_zero_of_the_permutation() -> None:
    indices = shuffled_indices(SEED, CLIENT, 4, 106)
    order = deal_order(SEED, CLIENT, 4, decks=2, jokers=1)
    canonical = shoe(2, 1)
    assert [c.physical for c in order] == [canonical[i].physical for i in indices]


# --- known answers -------------------------------------------------------------------------------


def test_first_swap_index_from_first_principles() -> None:
    # Block 0 for nonce 0 is HMAC-SHA256(key=seed, msg=b"player:0:0"); its first 4 bytes, read
    # big-endian, are the first word. The first Fisher–Yates step (i = 51) draws j below 52 and puts
    # canonical card j at the bottom position 51 for good.
    block0 = hmac.new(SEED, b"player:0:0", hashlib.sha256).digest()
    word = int.from_bytes(block0[:4], "big")
    assert word < (2**32 // 52) * 52  # not rejected (otherwise the next word would be used)
    j = word % 52
    assert shuffled_indices(SEED, CLIENT, 0, 52)[51] == j
    assert deal_order(SEED, CLIENT, 0, decks=1, jokers=0)[51] == shoe(1, 0)[j]


@pytest.mark.parametrize("nonce", [0, 1, 2, 17])
@pytest.mark.parametrize("n", [2, 13, 52, 106, 108])
def test_module_matches_the_reference_implementation(nonce: int, n: int) -> None:
    assert shuffled_indices(SEED, CLIENT, nonce, n) == reference_indices(SEED, CLIENT, nonce, n)


def test_pinned_deal() -> None:
    # Pinned literal output: any change to the algorithm, message format or shoe order breaks this.
    # The same deal is the worked example in docs/provably-fair.md.
    order = deal_order(SEED, CLIENT, 0, decks=1, jokers=0)
    assert format_cards(order[:8]) == "6D 6C 2D 7C 5H 4C 5S 3H"
    assert shuffled_indices(SEED, CLIENT, 0, 52)[:8] == [31, 44, 27, 45, 17, 42, 4, 15]
    two_decks = deal_order(SEED, CLIENT, 1, decks=2, jokers=1)
    assert [c.physical for c in two_decks[:8]] == [
        "10C#2", "6C#2", "8S#2", "AD#1", "QH#1", "5C#2", "AH#1", "5H#2",
    ]  # fmt: skip


def test_stream_blocks_are_hmac_of_the_documented_message() -> None:
    client = "joué:1"  # non-ASCII and a colon: UTF-8 bytes, and the format stays unambiguous
    blocks = random_stream(SEED, client, 5)
    for k in range(3):
        expected = hmac.new(SEED, f"joué:1:5:{k}".encode(), hashlib.sha256).digest()
        assert next(blocks) == expected
    assert stream_message(client, 5, 2) == "joué:1:5:2".encode()


# --- refills of the closed deck ------------------------------------------------------------------

UNDER = ["2H", "9C", "KD", "5S", "JK", "7H", "3D", "QS", "10C", "4H"]
"""The cards under the open pile's top card, bottom first: the worked refill of provably-fair.md."""


@pytest.mark.parametrize("nonce", [0, 3])
@pytest.mark.parametrize("refill", [1, 2, 10])
@pytest.mark.parametrize("n", [1, 2, 10, 79])
def test_refill_matches_the_reference_implementation(nonce: int, refill: int, n: int) -> None:
    # The documented message of block k: f"{client_seed}:refill:{r}:{nonce}:{k}".
    expected = reference_indices(SEED, f"{CLIENT}:refill:{refill}", nonce, n)
    assert refill_indices(SEED, CLIENT, nonce, refill, n) == expected
    assert refill_client_seed(CLIENT, refill) == f"player:refill:{refill}"


def test_refill_first_steps_from_first_principles() -> None:
    block0 = hmac.new(SEED, b"player:refill:1:0:0", hashlib.sha256).digest()
    first, second = int.from_bytes(block0[:4], "big"), int.from_bytes(block0[4:8], "big")
    order = refill_order(SEED, CLIENT, 0, 1, UNDER)
    # i = 9 draws below 10, i = 8 below 9: those cards go to the bottom and stay there.
    assert order[9] == UNDER[first % 10] == "3D"
    assert order[8] == UNDER[second % 9] == "2H"


def test_pinned_refill() -> None:
    # The worked example of docs/provably-fair.md ("Refills of the closed deck").
    assert refill_indices(SEED, CLIENT, 0, 1, 10) == [4, 7, 5, 9, 3, 2, 1, 8, 0, 6]
    assert " ".join(refill_order(SEED, CLIENT, 0, 1, UNDER)) == "JK QS 7H 4H 5S KD 9C 10C 2H 3D"
    assert " ".join(refill_order(SEED, CLIENT, 0, 2, UNDER)) == "QS 10C JK 9C 7H KD 3D 5S 4H 2H"
    assert FairDeal(SEED, CLIENT, 0).refill(1, UNDER) == refill_order(SEED, CLIENT, 0, 1, UNDER)


def test_refills_use_streams_of_their_own() -> None:
    """Each refill of a deal draws from a stream that is neither the deal's nor another
    refill's: the orders of 106 cards differ (equal by chance with odds 1 in 106!)."""
    orders = [shuffled_indices(SEED, CLIENT, 0, 106)]
    orders += [refill_indices(SEED, CLIENT, 0, r, 106) for r in (1, 2, 3)]
    assert len({tuple(order) for order in orders}) == 4
    # A refill is a permutation of exactly the cards it was given.
    assert sorted(refill_order(SEED, CLIENT, 0, 1, UNDER)) == sorted(UNDER)


@pytest.mark.parametrize("bad", [0, -1, True, 1.0])
def test_refill_numbers_start_at_one(bad: object) -> None:
    with pytest.raises(ValueError, match="numbered 1, 2"):
        refill_indices(SEED, CLIENT, 0, bad, 10)  # type: ignore[arg-type]


# --- commitment ----------------------------------------------------------------------------------


def test_commitment_is_sha256_hex_of_the_seed() -> None:
    assert commitment(bytes(32)) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )
    seed = secrets.token_bytes(32)
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert commitment(SEED) == commitment(SEED).lower()
    assert len(commitment(SEED)) == 64


# --- verify-deal CLI -----------------------------------------------------------------------------


def _verify(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str]]:
    argv = ["verify-deal", "--server-seed", SEED.hex(), "--client-seed", CLIENT, "--nonce", "0"]
    code = main([*argv, "--decks", "1", "--jokers", "0", *extra])
    return code, capsys.readouterr().out.splitlines()


def test_verify_deal_prints_order_and_checks_commitment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, lines = _verify(capsys, "--commitment", commitment(SEED).upper())
    assert code == 0
    assert lines[0] == format_cards(deal_order(SEED, CLIENT, 0, decks=1, jokers=0))
    assert lines[0].startswith("6D 6C 2D 7C")
    assert lines[1] == f"commitment {commitment(SEED)}"
    assert lines[2] == "commitment matches"


def test_verify_deal_reports_a_wrong_commitment(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _verify(capsys, "--commitment", commitment(bytes(32)))
    assert code == 1
    assert any(line.startswith("MISMATCH") for line in lines)
    assert "commitment matches" not in lines


def _verify_refill(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str]]:
    argv = ["verify-deal", "--server-seed", SEED.hex(), "--client-seed", CLIENT, "--nonce", "0"]
    code = main([*argv, "--from", " ".join(UNDER), *extra])
    return code, capsys.readouterr().out.splitlines()


def test_verify_deal_recomputes_a_refill(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _verify_refill(capsys, "--refill", "1", "--commitment", commitment(SEED))
    assert code == 0
    assert lines == [
        "JK QS 7H 4H 5S KD 9C 10C 2H 3D",
        f"commitment {commitment(SEED)}",
        "commitment matches",
    ]
    recorded = "JK QS 7H 4H 5S KD 9C 10C 2H 3D"
    code, lines = _verify_refill(capsys, "--refill", "1", "--cards", recorded)
    assert code == 0 and lines[-1] == "refill 1 matches"
    # copy numbers are kept, as a record writes them
    code, lines = _verify_refill(capsys, "--refill", "1", "--from", "AS#1 AS#2 KD#1")
    assert code == 0 and lines[0] == " ".join(
        refill_order(SEED, CLIENT, 0, 1, ["AS#1", "AS#2", "KD#1"])
    )


def test_verify_deal_reports_a_tampered_refill(capsys: pytest.CaptureFixture[str]) -> None:
    swapped = "QS JK 7H 4H 5S KD 9C 10C 2H 3D"  # the top two cards exchanged
    code, lines = _verify_refill(capsys, "--refill", "1", "--cards", swapped)
    assert code == 1
    assert lines[-1].startswith("MISMATCH: --cards is not the order refill 1")
    # the right order for refill 1, claimed as refill 2 of the deal
    code, lines = _verify_refill(
        capsys, "--refill", "2", "--cards", "JK QS 7H 4H 5S KD 9C 10C 2H 3D"
    )
    assert code == 1 and lines[-1].startswith("MISMATCH")


def test_verify_deal_refill_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["verify-deal", "--server-seed", SEED.hex(), "--client-seed", CLIENT, "--nonce", "0"]
    assert main([*argv, "--refill", "1"]) == 2
    assert "--refill needs --from" in capsys.readouterr().err
    assert main([*argv, "--from", "AS 2S"]) == 2
    assert "--from and --cards go with --refill" in capsys.readouterr().err
    assert main([*argv, "--refill", "0", "--from", "AS 2S"]) == 2
    assert "numbered 1, 2" in capsys.readouterr().err
    assert main([*argv, "--refill", "1", "--from", "AS ZZ"]) == 2
    capsys.readouterr()


def doc_examples() -> list[tuple[list[str], list[str], int]]:
    """The ``rummyhall verify-deal`` examples of docs/provably-fair.md: (arguments, printed lines,
    exit status)."""
    import shlex

    text = (ROOT / "docs" / "provably-fair.md").read_text(encoding="utf-8")
    examples = []
    for block in text.split("```")[1::2]:
        lines = block.strip("\n").splitlines()
        if not lines or not lines[0].startswith("$ rummyhall verify-deal"):
            continue
        command = lines.pop(0)
        while command.endswith("\\"):
            command = command[:-1] + lines.pop(0)
        status = 0
        if lines[-2:-1] == ["$ echo $?"]:
            status = int(lines[-1])
            lines = lines[:-2]
        examples.append((shlex.split(command)[2:], lines, status))
    return examples


def test_the_documented_examples_are_what_verify_deal_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    examples = doc_examples()
    assert sum(1 for argv, _, _ in examples if "--refill" in argv) == 2
    for argv, printed, status in examples:
        assert main(argv) == status, argv
        assert capsys.readouterr().out.splitlines() == printed, argv


# --- uniform_below and the word stream -----------------------------------------------------------


def words_of(*values: int) -> Iterator[int]:
    """A word iterator over one injected block built from the given 32-bit words."""
    block = b"".join(v.to_bytes(4, "big") for v in values)
    return stream_words(iter([block]))


def test_uniform_below_rejects_words_at_or_above_the_threshold() -> None:
    limit = (2**32 // 3) * 3  # 4294967295: only the single top word value is rejected
    words = words_of(limit, limit - 1, 7)
    assert uniform_below(3, words) == (limit - 1) % 3  # first word rejected, second accepted
    assert uniform_below(3, words) == 1  # the draw continues with the next word: 7 % 3


def test_uniform_below_rejection_with_a_large_bound() -> None:
    n = 2**31 + 1  # threshold is n itself: about half the words are rejected
    words = words_of(2**32 - 1, n, 2**31, 5)
    assert uniform_below(n, words) == 2**31
    assert uniform_below(n, words) == 5


def test_words_are_big_endian_and_blocks_are_read_in_order() -> None:
    assert uniform_below(10, stream_words(iter([b"\x00\x00\x00\x05"]))) == 5  # little-endian: 0
    first = b"".join((2**32 - 1).to_bytes(4, "big") for _ in range(8))  # all rejected for n=3
    second = (4).to_bytes(4, "big") + (8).to_bytes(4, "big")
    words = stream_words(iter([first, second]))
    assert uniform_below(3, words) == 4 % 3  # eight rejections, then word 0 of the next block
    assert uniform_below(3, words) == 8 % 3
    with pytest.raises(RuntimeError):
        uniform_below(3, words)


def test_uniform_below_consumes_one_word_even_for_n_equal_1() -> None:
    words = words_of(9, 11)
    assert uniform_below(1, words) == 0
    assert uniform_below(100, words) == 11


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        uniform_below(0, words_of(1))
    with pytest.raises(ValueError):
        uniform_below(2**32 + 1, words_of(1))
    with pytest.raises(ValueError):
        list(stream_words(iter([b"\x00\x01\x02"])))
    with pytest.raises(ValueError):
        shuffled_indices(SEED, CLIENT, -1, 10)
    with pytest.raises(ValueError):
        shuffled_indices(SEED, CLIENT, 0, -1)
    with pytest.raises(ValueError):
        FairDeal(b"", CLIENT)


# --- seeds and FairDeal --------------------------------------------------------------------------


def test_seeds_come_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def fake_token_bytes(nbytes: int | None = None) -> bytes:
        calls.append(nbytes or 0)
        return b"\x42" * (nbytes or 0)

    monkeypatch.setattr(secrets, "token_bytes", fake_token_bytes)
    assert shuffle.new_server_seed() == b"\x42" * 32
    assert calls == [32]


def test_fresh_seeds_are_distinct_and_well_formed() -> None:
    seeds = {shuffle.new_server_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(len(seed) == 32 for seed in seeds)
    client = shuffle.new_client_seed()
    assert len(client) == 32
    assert int(client, 16) >= 0


def test_fair_deal() -> None:
    deal = FairDeal(SEED, CLIENT, 0)
    assert deal.commitment == commitment(SEED)
    assert deal.order(1, 0) == deal_order(SEED, CLIENT, 0, decks=1, jokers=0)
    public = deal.to_public()
    assert public == {"commitment": commitment(SEED), "client_seed": CLIENT, "nonce": 0}
    assert deal.to_revealed() == {**public, "server_seed": SEED.hex()}
    assert SEED.hex() not in repr(deal)
    assert repr(SEED) not in repr(deal)


def test_fair_deal_new() -> None:
    deal = FairDeal.new()
    assert len(deal.server_seed) == 32
    assert deal.client_seed
    assert deal.nonce == 0
    other = FairDeal.new("mine", nonce=4)
    assert (other.client_seed, other.nonce) == ("mine", 4)
    assert other.server_seed != deal.server_seed


# --- statistics: card x position chi-square ------------------------------------------------------

CHI_N = 13  # cards (and positions)
CHI_SHUFFLES = 6500  # 500 expected per cell
CHI_ALPHA = 0.001
CHI_SEED = hashlib.sha256(b"rummyhall chi-square").digest()

Shuffler = Callable[[int], list[int]]


def chi_square_statistic(shuffler: Shuffler) -> float:
    """Pearson's statistic of the card x position table against the uniform 1/n, scaled by
    (n-1)/n.

    Each shuffle adds one count to every row and every column, so the cells are not independent:
    under a uniform shuffle the raw statistic has mean n(n-1), not (n-1)^2. By symmetry its
    covariance is the same in every direction of the (n-1)^2-dimensional space of tables with fixed
    margins, so the raw statistic is asymptotically n/(n-1) times a chi-square with (n-1)^2 degrees
    of freedom; the scaling makes it an ordinary chi-square variable."""
    n = CHI_N
    table = [[0] * n for _ in range(n)]
    for nonce in range(CHI_SHUFFLES):
        for position, card in enumerate(shuffler(nonce)):
            table[card][position] += 1
    expected = CHI_SHUFFLES / n
    raw = sum((count - expected) ** 2 / expected for row in table for count in row)
    return raw * (n - 1) / n


def chi_square_critical(df: int, alpha: float) -> float:
    """Upper alpha critical value of chi-square(df), Wilson–Hilferty cube-root approximation."""
    z = NormalDist().inv_cdf(1 - alpha)
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


CHI_CRITICAL = chi_square_critical((CHI_N - 1) ** 2, CHI_ALPHA)


def fair_shuffle(nonce: int) -> list[int]:
    return shuffled_indices(CHI_SEED, "chi", nonce, CHI_N)


def naive_shuffle(nonce: int) -> list[int]:
    """The classic mistake: swap every position with one drawn from the whole deck. n^n equally
    likely paths cannot map evenly onto n! orders. Same stream and same unbiased draws as the fair
    shuffle, so only the algorithm differs."""
    words = stream_words(random_stream(CHI_SEED, "chi", nonce))
    a = list(range(CHI_N))
    for i in range(CHI_N):
        j = uniform_below(CHI_N, words)
        a[i], a[j] = a[j], a[i]
    return a


def modulo_biased_shuffle(nonce: int) -> list[int]:
    """Fisher–Yates with 4-bit words and no rejection: 16 % (i+1) low values get an extra share."""
    words = stream_words(random_stream(CHI_SEED, "chi", nonce))
    a = list(range(CHI_N))
    for i in range(CHI_N - 1, 0, -1):
        j = (next(words) & 0xF) % (i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def test_chi_square_critical_value_approximation() -> None:
    # Tabulated chi-square quantiles: df=100 at alpha 0.001 is 149.449, at 0.05 is 124.342.
    assert chi_square_critical(100, 0.001) == pytest.approx(149.449, abs=0.2)
    assert chi_square_critical(100, 0.05) == pytest.approx(124.342, abs=0.1)


def test_fair_shuffle_passes_card_position_chi_square() -> None:
    statistic = chi_square_statistic(fair_shuffle)
    assert statistic < CHI_CRITICAL, (statistic, CHI_CRITICAL)


@pytest.mark.parametrize("biased", [naive_shuffle, modulo_biased_shuffle])
def test_chi_square_catches_a_biased_shuffle(biased: Shuffler) -> None:
    statistic = chi_square_statistic(biased)
    assert statistic > 3 * CHI_CRITICAL, (statistic, CHI_CRITICAL)


# --- no process-wide random in the package -------------------------------------------------------

ALLOWED_RANDOM_ATTRIBUTES = {"Random", "SystemRandom"}


def random_module_misuse(source: str, filename: str = "<source>") -> list[str]:
    """Uses of the `random` module other than constructing a Random/SystemRandom instance."""
    tree = ast.parse(source, filename)
    aliases: set[str] = set()
    problems: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names if a.name == "random")
        elif isinstance(node, ast.ImportFrom) and node.module == "random" and node.level == 0:
            problems.extend(
                f"{filename}:{node.lineno}: from random import {a.name}"
                for a in node.names
                if a.name not in ALLOWED_RANDOM_ATTRIBUTES
            )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr not in ALLOWED_RANDOM_ATTRIBUTES
        ):
            problems.append(f"{filename}:{node.lineno}: {node.value.id}.{node.attr}")
    return problems


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("import random\nrandom.shuffle(x)\n", True),
        ("import random as r\nr.choice(x)\n", True),
        ("from random import randint\n", True),
        ("from random import *\n", True),
        ("import random\nf = random.random\n", True),
        ("import random\nrng = random.Random(1)\nrng.shuffle(x)\n", False),
        ("from random import SystemRandom\nSystemRandom().shuffle(x)\n", False),
        ("import secrets\nsecrets.choice(x)\n", False),
    ],
)
def test_random_misuse_scanner(source: str, bad: bool) -> None:
    assert bool(random_module_misuse(source)) is bad


def test_package_does_not_use_module_level_random() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert PACKAGE / "shuffle.py" in files
    problems = [
        problem
        for path in files
        for problem in random_module_misuse(path.read_text(encoding="utf-8"), str(path))
    ]
    assert problems == []


def _ruff() -> str:
    candidate = Path(sys.executable).parent / "ruff"
    found = str(candidate) if candidate.exists() else shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed")
    return found


def _ruff_check(*paths: Path) -> subprocess.CompletedProcess[str]:
    command = [_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml")]
    command += ["--output-format", "concise", *map(str, paths)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_bans_module_level_random(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import random\n\nx = [1, 2]\nrandom.shuffle(x)\n", encoding="utf-8")
    result = _ruff_check(bad)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "TID251" in result.stdout
    fine = tmp_path / "fine.py"
    fine.write_text("import random\n\nrng = random.Random(1)\n", encoding="utf-8")
    assert "TID251" not in _ruff_check(fine).stdout


def test_ruff_finds_no_banned_random_in_the_package() -> None:
    command = [_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml")]
    command += ["--select", "TID251", str(PACKAGE)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
