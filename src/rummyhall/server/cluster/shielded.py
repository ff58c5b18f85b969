"""Redis pipelines run shielded from their caller's cancellation.

redis-py's asyncio pipeline can swallow a cancellation that arrives while it waits for Redis: it
returns as if nothing happened, and the task that was cancelled (a node stopping: the lease
renewer, the relay's publisher, the directory's writer) goes on instead of ending. Running the
pipeline in a task of its own and awaiting it through :func:`asyncio.shield` lets the caller's
cancellation reach the caller, while the pipeline itself runs to its end (a half-sent batch
would leave Redis's connection in an unknown state)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


async def shielded(work: Coroutine[Any, Any, T]) -> T:
    """``work``'s result; a cancellation of the caller stops the caller, not ``work``."""
    return await asyncio.shield(asyncio.ensure_future(work))
