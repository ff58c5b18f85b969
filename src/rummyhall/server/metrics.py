"""Prometheus metrics of one server (a registry per app, so that tests can run several)."""

from __future__ import annotations

import gc
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.tables = Gauge(
            "rummyhall_live_tables", "Tables with a live actor", registry=self.registry
        )
        self.connections = Gauge(
            "rummyhall_connections", "Open WebSocket connections", registry=self.registry
        )
        self.actions = Counter(
            "rummyhall_actions", "Game actions accepted (players, bots, timeouts, deals)",
            registry=self.registry,
        )  # fmt: skip
        self.latency = Histogram(
            "rummyhall_action_seconds",
            "From an action's arrival at its table to its commit and broadcast",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )
        self.messages = Counter(
            "rummyhall_messages_sent", "Messages queued to connections", registry=self.registry
        )
        self.errors = Counter(
            "rummyhall_errors", "Errors sent to clients, by code", ["code"], registry=self.registry
        )
        # Several nodes (server/cluster/relay.py): what reaching tables of other nodes costs.
        self.relay_publishes = Counter(
            "rummyhall_relay_publishes", "Redis publishes to other nodes (calls, answers, frames)",
            registry=self.registry,
        )  # fmt: skip
        self.relay_calls = Counter(
            "rummyhall_relay_calls", "Calls made to the node that runs a table, by operation",
            ["op"], registry=self.registry,
        )  # fmt: skip
        self.relay_served = Counter(
            "rummyhall_relay_served", "Calls of other nodes served here, by operation", ["op"],
            registry=self.registry,
        )  # fmt: skip

        # Every table of the process waits while the cycle collector runs: its pauses are the
        # first suspect for a latency tail (docs/operations.md, "Metrics").
        self.gc_pauses = Histogram(
            "rummyhall_gc_pause_seconds", "Pauses of the cycle collector, by generation",
            ["generation"], buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )  # fmt: skip
        # Made here, not in the callback: a child made there would take the metric's lock (and
        # allocate) inside a collection.
        self._gc_pauses = tuple(self.gc_pauses.labels(generation=str(g)) for g in range(3))
        self._gc_started = 0.0
        self.gc_frozen = Gauge(
            "rummyhall_gc_frozen_objects",
            "Objects kept out of the cycle collector's sight (server/collector.py)",
            registry=self.registry,
        )
        self.gc_frozen.set_function(gc.get_freeze_count)

    def watch_gc(self) -> None:
        """Time the cycle collector's pauses from now on (until :meth:`unwatch_gc`)."""
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def unwatch_gc(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started:
            self._gc_pauses[info["generation"]].observe(time.perf_counter() - self._gc_started)

    def action(self, seconds: float) -> None:
        self.actions.inc()
        self.latency.observe(seconds)

    def sent(self, count: int) -> None:
        self.messages.inc(count)

    def error(self, code: str) -> None:
        self.errors.labels(code=code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
