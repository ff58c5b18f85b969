"""The key that seals unrevealed deal seeds at rest (server/sealed_seeds.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rummyhall.server.sealed_seeds import SealError, SeedKey
from rummyhall.shuffle import commitment, new_server_seed


def test_a_sealed_seed_opens_with_its_key_table_and_commitment() -> None:
    key = SeedKey.generate()
    seed = new_server_seed()
    sealed = key.seal(seed, 7)
    assert seed.hex() not in sealed
    assert key.open(sealed, 7, commitment(seed)) == seed
    # Sealed twice, the text differs (a fresh nonce each time); both open.
    again = key.seal(seed, 7)
    assert again != sealed
    assert key.open(again, 7, commitment(seed)) == seed


def test_another_key_is_refused_with_both_key_ids() -> None:
    seed = new_server_seed()
    ours, theirs = SeedKey.generate(), SeedKey.generate()
    sealed = theirs.seal(seed, 1)
    with pytest.raises(SealError) as refused:
        ours.open(sealed, 1, commitment(seed))
    assert theirs.id in str(refused.value) and ours.id in str(refused.value)


def test_a_seed_moved_to_another_table_or_commitment_does_not_open() -> None:
    key = SeedKey.generate()
    seed, other = new_server_seed(), new_server_seed()
    sealed = key.seal(seed, 1)
    with pytest.raises(SealError):
        key.open(sealed, 2, commitment(seed))
    with pytest.raises(SealError):
        key.open(sealed, 1, commitment(other))


def test_a_damaged_seal_does_not_open() -> None:
    key = SeedKey.generate()
    seed = new_server_seed()
    sealed = key.seal(seed, 1)
    flipped = sealed[:-3] + ("A" if sealed[-3] != "A" else "B") + sealed[-2:]
    for bad in (flipped, sealed[:-8], "v2" + sealed[2:], "nonsense"):
        with pytest.raises(SealError):
            key.open(bad, 1, commitment(seed))


def test_the_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "data" / "seed.key"
    first = SeedKey.load_or_create(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o077 == 0
    again = SeedKey.load_or_create(path)
    assert again.id == first.id
    seed = new_server_seed()
    assert again.open(first.seal(seed, 3), 3, commitment(seed)) == seed


def test_a_key_file_that_is_not_a_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "seed.key"
    path.write_text("not hex\n")
    with pytest.raises(ValueError, match="seed key"):
        SeedKey.load_or_create(path)
    path.write_text("ab" * 16 + "\n")  # hex, but 16 bytes
    with pytest.raises(ValueError, match="32 bytes"):
        SeedKey.load_or_create(path)
