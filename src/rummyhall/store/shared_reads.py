"""Reads that the requests of one turn of the event loop share: one statement for all of them.

A burst of arrivals asks the database the same small question a thousand times a second (what
does this wallet hold, before a quick seat). On PostgreSQL each of those, asked on its own, is a
pooled connection's checkout, a transaction and a round trip, and at a thousand players joining
within a second they were a quarter of the server's CPU (stop 43, docs/operations.md). The
questions asked during one turn of the loop wait for the end of that turn and then go out
together, as one read (:meth:`rummyhall.store.database.Database.read_now`) that answers every one
of them: the table writer's :data:`~rummyhall.server.writer.Shared` work, for reads. Each turn
starts its own read at once, so no question waits for another turn's answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection

_I = TypeVar("_I")
_R = TypeVar("_R")

SharedLook = Callable[[Connection, Sequence[_I]], Sequence[_R]]
"""Plain reading code that answers several questions at once: called with every question of a
turn, in the order they were asked (the same may come twice), it returns each one's answer."""

Read = Callable[[Callable[[Connection], Any]], Awaitable[Any]]


@dataclass(slots=True)
class _Turn(Generic[_I, _R]):
    """The questions of one look asked during one turn of the loop, and who waits for each."""

    items: list[_I] = field(default_factory=list)
    waiters: list[asyncio.Future[_R]] = field(default_factory=list)


class SharedReads:
    """Gathers the questions of each turn of the loop by look (a module-level function: the same
    object every time) and answers them with one read per look and turn."""

    def __init__(self) -> None:
        self._turns: dict[Any, _Turn[Any, Any]] = {}
        self._reading: set[asyncio.Task[None]] = set()
        """The reads under way (the loop keeps only weak references to tasks)."""

    async def read(self, read: Read, look: SharedLook[_I, _R], item: _I) -> _R:
        """``look``'s answer to ``item``, read with the other questions of this turn by ``read``
        (the one given with the turn's first question; a caller's own database's, so that this
        object keeps no reference to it)."""
        loop = asyncio.get_running_loop()
        turn: _Turn[_I, _R] | None = self._turns.get(look)
        if turn is None:
            turn = self._turns[look] = _Turn()
            # Runs after every callback already due in this turn, which may ask too.
            loop.call_soon(self._start, read, look)
        waiter: asyncio.Future[_R] = loop.create_future()
        turn.items.append(item)
        turn.waiters.append(waiter)
        return await waiter

    def _start(self, read: Read, look: SharedLook[Any, Any]) -> None:
        turn = self._turns.pop(look)
        task = asyncio.ensure_future(self._answer(read, look, turn))
        self._reading.add(task)
        task.add_done_callback(self._reading.discard)

    async def _answer(self, read: Read, look: SharedLook[_I, _R], turn: _Turn[_I, _R]) -> None:
        items = turn.items
        try:
            answers: Sequence[_R] = await read(lambda conn: look(conn, items))
            if len(answers) != len(items):  # (a look's mistake: each asker hears of it)
                raise ValueError(f"{len(answers)} answers to {len(items)} questions")
        except BaseException as error:
            for waiter in turn.waiters:
                if waiter.done():  # (its asker was cancelled: nobody to tell)
                    continue
                if isinstance(error, asyncio.CancelledError):  # (the server is stopping)
                    waiter.cancel()
                else:
                    waiter.set_exception(error)
            if not isinstance(error, Exception):
                raise
            return
        for waiter, answer in zip(turn.waiters, answers, strict=True):  # (checked above)
            if not waiter.done():
                waiter.set_result(answer)
