"""Provably-fair shuffle (placeholder; implemented in this module)."""

from __future__ import annotations

from rummyhall.cards import Card


def commitment(server_seed: bytes) -> str:
    raise NotImplementedError


def deal_order(server_seed: bytes, client_seed: str, nonce: int, *, decks: int, jokers: int) -> list[Card]:
    raise NotImplementedError
