"""Rummy Hall: a self-hosted multiplayer card room."""

__version__ = "0.1.0"
