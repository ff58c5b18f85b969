"""Rummy Hall: a self-hosted multiplayer card room."""

# First, before any module it may load pure (RUMMYHALL_PURE=1; see native.py).
from rummyhall import native

native.install()

__version__ = "0.1.0"
