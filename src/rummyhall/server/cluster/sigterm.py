"""SIGTERM on one node of several: drain, then stop (issue 21, docs/cluster.md, "Draining a
node").

uvicorn answers SIGTERM by closing its listening sockets and every connection at once (a
WebSocket is closed with 1012, "service restart"), then running the app's shutdown; after that
it raises the signal again, so the process ends as killed by it. For a node that would leave
its tables to the other nodes' sweeps (a ttl later) and tell the players nothing useful. This
server drains the node first (:meth:`rummyhall.server.hub.Hub.drain`: its tables handed on
between two actions, their sockets closed with 4503 so that clients reconnect and find the
table on another node), then shuts down as uvicorn does, and the process exits with status 0:
the stop was asked for and went as planned. A second SIGTERM during the drain, or SIGINT,
stops at once as uvicorn does. One process alone (no ``--redis``) runs plain uvicorn.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable
from types import FrameType

import uvicorn

log = logging.getLogger(__name__)


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, drain: Callable[[], Awaitable[object]]) -> None:
        super().__init__(config)
        self.drain = drain
        self._drain_asked = False
        self._draining: asyncio.Task[None] | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGTERM and not self._drain_asked and not self.should_exit:
            # A signal handler runs between two bytecodes of the loop's thread: only note it
            # here; the server's next tick (every 0.1 s) starts the drain in the loop. Not
            # noted as caught either, so it is not raised again once the server has stopped.
            self._drain_asked = True
            return
        super().handle_exit(sig, frame)

    async def on_tick(self, counter: int) -> bool:
        if self._drain_asked and self._draining is None:
            self._draining = asyncio.create_task(self._drain_then_stop(), name="sigterm-drain")
        return await super().on_tick(counter)

    async def _drain_then_stop(self) -> None:
        log.info("SIGTERM: handing this node's tables on before stopping")
        try:
            await self.drain()
        except Exception:
            # The stop goes on: the leases still held are released as the hub stops.
            log.exception("the drain failed; stopping anyway")
        self.should_exit = True
