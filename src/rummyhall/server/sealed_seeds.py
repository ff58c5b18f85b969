"""Deal seeds at rest: sealed with a key that lives only with the server.

A table's log must hold the server seed of a deal in play, or a restarted server could not deal
the same deck again (DESIGN.md, principle 4). Whoever reads that seed can compute every hand at
the table, so a database dump, a backup or a replica must not give it away. The log therefore holds
the seed *sealed*: AES-256-GCM under a 32-byte key kept in a file beside the server (``seed.key``
in the data folder, or ``--seed-key-file``), never in the database. The public parts of the deal
(commitment, client seed, nonce) stay readable, and the seed itself is published in the clear
only once its game is over (the finished game's record, see docs/provably-fair.md).

A sealed seed reads ``v1:<key id>:<base64url of nonce + ciphertext + tag>``. The key id is the
first 16 hex digits of a hash of the key: a server started with another key refuses a sealed seed
with a message naming both ids, instead of failing on a garbled seed. The associated data binds
a sealed seed to its table and commitment, so a seed copied into another table's row, or beside
another commitment, does not open.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import secrets
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from rummyhall.shuffle import commitment

log = logging.getLogger(__name__)

KEY_BYTES: Final = 32
NONCE_BYTES: Final = 12
VERSION: Final = "v1"


class SealError(Exception):
    """A sealed seed that this server cannot open (another key, or a damaged row)."""


class SeedKey:
    """The server's key for sealing deal seeds (see the module docstring)."""

    def __init__(self, key: bytes) -> None:
        if len(key) != KEY_BYTES:
            raise ValueError(f"a seed key is {KEY_BYTES} bytes, not {len(key)}")
        self._aead = AESGCM(key)
        self.id = hashlib.sha256(b"rummyhall seed key\x00" + key).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"SeedKey(id={self.id})"

    @classmethod
    def generate(cls) -> SeedKey:
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def load_or_create(cls, path: Path) -> SeedKey:
        """The key in ``path`` (64 hex digits); a fresh one is written there, readable by its
        owner only, when the file does not exist yet."""
        if not path.exists():
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            key = secrets.token_bytes(KEY_BYTES)
            # O_EXCL: two servers started at once on one folder cannot each write their own key.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(key.hex() + "\n")
            log.info("wrote a new seed key to %s", path)
        elif path.stat().st_mode & 0o077:
            log.warning(
                "the seed key %s can be read by other users (mode %o): chmod 600 it",
                path,
                path.stat().st_mode & 0o777,
            )
        text = path.read_text().strip()
        try:
            key = bytes.fromhex(text)
        except ValueError:
            raise ValueError(f"{path} does not hold a seed key (64 hex digits)") from None
        return cls(key)

    def seal(self, seed: bytes, table_id: int) -> str:
        """``seed`` sealed for the table's log."""
        nonce = secrets.token_bytes(NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, seed, _context(table_id, commitment(seed)))
        blob = base64.urlsafe_b64encode(nonce + sealed).decode("ascii")
        return f"{VERSION}:{self.id}:{blob}"

    def open(self, sealed: str, table_id: int, committed: str) -> bytes:
        """The seed sealed in ``sealed`` for the table, checked against its commitment."""
        version, key_id, blob = [*sealed.split(":", 2), "", ""][:3]
        if version != VERSION:
            raise SealError(f"table {table_id}: unknown sealed seed format {version!r}")
        if key_id != self.id:
            raise SealError(
                f"table {table_id}: its deal seed is sealed with seed key {key_id}, and this "
                f"server has key {self.id}; start it with the key file that wrote the log"
            )
        try:
            raw = base64.urlsafe_b64decode(blob)
            seed = self._aead.decrypt(
                raw[:NONCE_BYTES], raw[NONCE_BYTES:], _context(table_id, committed)
            )
        except (ValueError, InvalidTag):
            raise SealError(f"table {table_id}: a sealed deal seed does not open") from None
        if commitment(seed) != committed:  # pragma: no cover - the associated data checks it
            raise SealError(f"table {table_id}: a sealed seed does not match its commitment")
        return seed


def _context(table_id: int, committed: str) -> bytes:
    return f"rummyhall deal seed\x00table {table_id}\x00{committed}".encode()
