"""Provably-fair shuffles: a deal any player can recompute and check after the fact.

Protocol (commit–reveal; the full description for players is ``docs/provably-fair.md``):

1. Before the deal the server draws a secret *server seed* (:func:`new_server_seed`) and
   publishes its :func:`commitment`, the SHA-256 of the seed: it fixes the seed without showing it.
2. The player supplies a *client seed* (any text; :func:`new_client_seed` makes one if they give
   none) and the deal has a *nonce*, a non-negative integer counting deals under one server seed.
   Because the server is bound to its seed before it sees the client seed, it cannot choose a seed
   that produces a deck it likes; because the player never sees the seed, they cannot predict it.
3. The deck order is a pure function of the three values (:func:`deal_order`). After the deal
   the server reveals the seed; anyone can check ``sha256(seed) == commitment`` and recompute the
   deck.

Algorithm, byte for byte (everything else in this module is plumbing around it):

* Block ``k`` (k = 0, 1, 2, ...) of the random stream is
  ``HMAC-SHA256(key=server_seed, msg=f"{client_seed}:{nonce}:{k}".encode("utf-8"))`` -- 32 bytes.
  ``nonce`` and ``k`` are written in decimal with no sign, padding or leading zeros. Since both are
  digits only, the message splits unambiguously at its last two colons even when the client seed
  itself contains colons.
* Each block is read as eight 4-byte big-endian unsigned words (bytes 0-3, 4-7, ..., 28-31). When a
  block's eight words are used up, the next block is computed. Words are never skipped or reused.
* A uniform integer below ``n`` (:func:`uniform_below`) takes the next word ``w``; if
  ``w >= (2**32 // n) * n`` the word is rejected and the next one is taken; otherwise the result is
  ``w % n``. The rejection removes the modulo bias (2**32 is not a multiple of most ``n``).
* The permutation (:func:`shuffled_indices`) is Fisher–Yates from the top index down: start from
  ``a = [0, 1, ..., n-1]``; for ``i = n-1, n-2, ..., 1`` draw ``j = uniform_below(i + 1)`` and swap
  ``a[i]`` and ``a[j]``.
* The deck (:func:`deal_order`) is ``deck[p] = shoe[a[p]]`` where ``shoe`` is
  :func:`rummyhall.cards.shoe` (canonical order); ``deck[0]`` is the top card, dealt first.
* A refill of the closed deck (:func:`refill_order`): refill number ``r`` (1, 2, ... within the
  deal) takes the cards under the open pile's top card, listed bottom of the pile first, as
  ``under``, and makes the new closed deck ``stock[p] = under[b[p]]`` (``stock[0]`` on top,
  drawn first), where ``b = shuffled_indices(server_seed, f"{client_seed}:refill:{r}", nonce,
  len(under))``: the same stream, words and Fisher–Yates as the deal, with the client seed
  extended by ``:refill:r`` (:func:`refill_client_seed`). The deal's commitment therefore fixes
  every refill too, and no refill's stream is the stream of the deal, of another refill, or of
  another deal (that would take the same nonce under the same seed).

All unpredictability comes from :mod:`secrets`; the process-wide :mod:`random` generator is banned
in this package (ruff TID251) because its state can be recovered from its outputs.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import itertools
import secrets
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar

from rummyhall.cards import Card, shoe

SEED_BYTES: Final = 32
"""Length of a fresh server seed: 256 bits, as much as SHA-256 can commit to."""

WORD_BYTES: Final = 4
"""Bytes per word taken from the stream (big-endian unsigned)."""

WORD_RANGE: Final = 1 << (8 * WORD_BYTES)
"""Number of distinct word values, 2**32; the largest ``n`` :func:`uniform_below` accepts."""

_BLOCK_BYTES: Final = hashlib.sha256().digest_size
_WORDS_PER_BLOCK: Final = _BLOCK_BYTES // WORD_BYTES
_BLOCK_FORMAT: Final = struct.Struct(f">{_WORDS_PER_BLOCK}I")
_WORD_FORMAT: Final = struct.Struct(">I")

REFILL_TAG: Final = "refill"
"""The word between the client seed and the refill number in a refill's client seed."""

T = TypeVar("T")


def new_server_seed() -> bytes:
    """A fresh secret server seed, 32 bytes from the operating system's CSPRNG.

    It must stay secret until the deals it covers are over: whoever knows it can compute the
    deck."""
    return secrets.token_bytes(SEED_BYTES)


def new_client_seed() -> str:
    """A default client seed (32 hex digits) for a player who does not choose their own.

    A player who wants to be sure the server could not influence the client seed should supply one;
    this default only ensures the value is never empty or predictable by other players."""
    return secrets.token_hex(16)


def commitment(server_seed: bytes) -> str:
    """The public commitment to a server seed: lowercase hex SHA-256 of the raw seed bytes.

    Published before the deal. SHA-256 is preimage-resistant, so it reveals nothing useful about a
    32-byte random seed, and collision-resistant, so the server cannot later reveal a different
    seed with the same commitment."""
    return hashlib.sha256(server_seed).hexdigest()


def _check_nonce(nonce: int) -> None:
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise ValueError(f"nonce must be a non-negative integer, got {nonce!r}")


def stream_message(client_seed: str, nonce: int, block: int) -> bytes:
    """The HMAC message of one block: ``f"{client_seed}:{nonce}:{block}"`` in UTF-8.

    Exposed so that verifiers and tests can state the format without re-deriving it."""
    _check_nonce(nonce)
    return f"{client_seed}:{nonce}:{block}".encode()


def random_stream(server_seed: bytes, client_seed: str, nonce: int) -> Iterator[bytes]:
    """The endless stream of 32-byte blocks of one deal: block ``k`` is
    ``HMAC-SHA256(key=server_seed, msg=stream_message(client_seed, nonce, k))``, ``k = 0, 1, ...``.

    HMAC keyed by the secret seed makes the stream unpredictable without the seed, while mixing in
    the client seed and nonce gives every deal a distinct stream. The keyed HMAC state is built once
    and copied per block, which is what keeps a shuffle well under a millisecond."""
    _check_nonce(nonce)
    keyed = hmac.new(server_seed, digestmod=hashlib.sha256)
    prefix = f"{client_seed}:{nonce}:".encode()
    for k in itertools.count():
        mac = keyed.copy()
        mac.update(prefix + str(k).encode("ascii"))
        yield mac.digest()


def stream_words(blocks: Iterable[bytes]) -> Iterator[int]:
    """Split blocks into 4-byte big-endian unsigned words, in order: bytes 0-3 of the first block,
    then 4-7, ..., then the next block. A block's length must be a multiple of 4 (HMAC-SHA256
    blocks give 8 words each).

    Draws share one word iterator, so a draw that follows a rejection, or that follows another draw,
    continues exactly where the previous one stopped, also across block boundaries."""
    for block in blocks:
        if len(block) == _BLOCK_BYTES:
            yield from _BLOCK_FORMAT.unpack(block)
            continue
        if len(block) % WORD_BYTES:
            raise ValueError(f"block length {len(block)} is not a multiple of {WORD_BYTES}")
        for (word,) in _WORD_FORMAT.iter_unpack(block):
            yield word


def uniform_below(n: int, words: Iterator[int]) -> int:
    """An unbiased integer in ``[0, n)`` from a stream of 32-bit words (see :func:`stream_words`).

    Takes words in order and rejects every word ``>= (2**32 // n) * n``: the accepted range is
    then a whole number of copies of ``[0, n)``, so ``word % n`` is exactly uniform. Fewer than half
    of the words are rejected for any ``n``; for card-sized ``n`` rejections are very rare. Even
    ``n == 1`` consumes one word, so the number of words a draw takes depends only on rejections.

    Raises ``ValueError`` for ``n`` outside ``1..2**32`` and ``RuntimeError`` if a finite stream
    runs out."""
    if not 1 <= n <= WORD_RANGE:
        raise ValueError(f"n must be between 1 and 2**32, got {n}")
    limit = (WORD_RANGE // n) * n
    for word in words:
        if word < limit:
            return word % n
    raise RuntimeError("the word stream ran out before a value was accepted")


def shuffled_indices(server_seed: bytes, client_seed: str, nonce: int, n: int) -> list[int]:
    """The permutation of ``0..n-1`` for a deal: position ``p`` of the deck holds canonical card
    ``result[p]``.

    Fisher–Yates, top index down: for ``i = n-1 .. 1`` swap ``a[i]`` with ``a[uniform_below(i+1)]``.
    Each of the ``n!`` orders comes out with equal probability given uniform draws; the often seen
    variant that draws ``j`` from all of ``[0, n)`` at every step does not (tests show the bias)."""
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    words = stream_words(random_stream(server_seed, client_seed, nonce))
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_below(i + 1, words)
        order[i], order[j] = order[j], order[i]
    return order


def deal_order(
    server_seed: bytes, client_seed: str, nonce: int, *, decks: int, jokers: int
) -> list[Card]:
    """The shuffled shoe of ``decks`` packs with ``jokers`` printed jokers each, top card first.

    ``deck[p] = shoe(decks, jokers)[shuffled_indices(...)[p]]``; the canonical order is defined by
    :func:`rummyhall.cards.shoe` and the cards keep its copy numbers, so physical cards can be
    tracked through the deal."""
    cards = _canonical_shoe(decks, jokers)
    return [cards[i] for i in shuffled_indices(server_seed, client_seed, nonce, len(cards))]


def refill_client_seed(client_seed: str, refill: int) -> str:
    """The client seed whose stream orders refill ``refill`` (1, 2, ...) of the deal with
    ``client_seed``: ``f"{client_seed}:refill:{refill}"``, the number in decimal without padding.

    Block ``k`` of refill ``r`` is thus the HMAC of ``f"{client_seed}:refill:{r}:{nonce}:{k}"``.
    It is no message of the deal itself (after the client seed and its colon the deal's messages
    go on with a digit, a refill's with ``refill``), nor of another refill of the deal (the three
    numbers after ``refill:`` are digits only, so they split one way). Another deal could only
    produce it with the same nonce under the same server seed, which the protocol rules out."""
    if isinstance(refill, bool) or not isinstance(refill, int) or refill < 1:
        raise ValueError(f"a refill is numbered 1, 2, ... within its deal, got {refill!r}")
    return f"{client_seed}:{REFILL_TAG}:{refill}"


def refill_indices(
    server_seed: bytes, client_seed: str, nonce: int, refill: int, n: int
) -> list[int]:
    """The permutation of refill ``refill`` of a deal, for ``n`` cards:
    :func:`shuffled_indices` under :func:`refill_client_seed`. Position ``p`` of the new closed
    deck holds card ``result[p]`` of the cards it is made from (see :func:`refill_order`)."""
    return shuffled_indices(server_seed, refill_client_seed(client_seed, refill), nonce, n)


def refill_order(
    server_seed: bytes, client_seed: str, nonce: int, refill: int, under: Sequence[T]
) -> list[T]:
    """Refill ``refill`` of a deal: ``under`` (the cards under the open pile's top card, bottom of
    the pile first) in their new order, top of the closed deck first:
    ``stock[p] = under[refill_indices(...)[p]]``."""
    order = refill_indices(server_seed, client_seed, nonce, refill, len(under))
    return [under[i] for i in order]


@functools.lru_cache(maxsize=16)
def _canonical_shoe(decks: int, jokers: int) -> tuple[Card, ...]:
    """:func:`rummyhall.cards.shoe`, built once per shoe size: building the cards costs more than
    the shuffle itself, and cards are immutable, so deals can share them."""
    return tuple(shoe(decks, jokers))


@dataclass(frozen=True, slots=True)
class FairDeal:
    """The three inputs of one provably-fair deal.

    ``server_seed`` is left out of ``repr`` so that logging a deal before it is over cannot leak the
    seed; publish :meth:`to_public` before the deal and :meth:`to_revealed` after it."""

    server_seed: bytes = field(repr=False)
    client_seed: str
    nonce: int = 0

    def __post_init__(self) -> None:
        if not self.server_seed:
            raise ValueError("the server seed must not be empty")
        _check_nonce(self.nonce)

    @classmethod
    def new(cls, client_seed: str | None = None, nonce: int = 0) -> FairDeal:
        """A deal with a freshly drawn server seed (and a default client seed if none is given)."""
        seed = new_server_seed()
        return cls(seed, new_client_seed() if client_seed is None else client_seed, nonce)

    @property
    def commitment(self) -> str:
        """SHA-256 hex of the server seed, safe to publish before the deal."""
        return commitment(self.server_seed)

    def order(self, decks: int, jokers: int) -> list[Card]:
        """The shuffled shoe, top card first (see :func:`deal_order`)."""
        return deal_order(
            self.server_seed, self.client_seed, self.nonce, decks=decks, jokers=jokers
        )

    def refill(self, number: int, under: Sequence[T]) -> list[T]:
        """Refill ``number`` (1, 2, ...) of this deal: the cards under the open pile's top card,
        bottom first, in the order the seeds fix, top first (see :func:`refill_order`)."""
        return refill_order(self.server_seed, self.client_seed, self.nonce, number, under)

    def to_public(self) -> dict[str, str | int]:
        """What may be shown before and during the deal: commitment, client seed, nonce."""
        return {"commitment": self.commitment, "client_seed": self.client_seed, "nonce": self.nonce}

    def to_revealed(self) -> dict[str, str | int]:
        """Everything needed to verify the deal, including the hex server seed; only after the deal
        (and after every other deal using the same seed)."""
        return {**self.to_public(), "server_seed": self.server_seed.hex()}
