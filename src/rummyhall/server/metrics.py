"""Prometheus metrics of one server (a registry per app, so that tests can run several).

The figures of every action (actions, their time, the table writer's commits and waits, the
messages sent) are plain numbers that only the event loop's thread updates
(:class:`LoopCounter`, :class:`LoopHistogram`), turned into metric families when /metrics is
read: prometheus_client's own take a lock, and a few Python calls, at each update, about ten
times an action.
"""

from __future__ import annotations

import asyncio
import bisect
import gc
import time
from collections.abc import Iterator, Sequence
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

TIMES = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
"""The buckets (seconds) of the histograms of the time things take in the room: an action,
a job's wait for its commit, a COMMIT, the loop's lag."""

LAG_PROBE_S = 0.1
"""How often the event loop's lag is sampled (:meth:`Metrics.watch_loop`)."""


class LoopCounter:
    """A counter the event loop's thread alone adds to (exported by :class:`LoopMetrics`)."""

    def __init__(self, name: str, documentation: str) -> None:
        self.name, self.documentation = name, documentation
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount

    def family(self) -> Metric:
        return CounterMetricFamily(self.name, self.documentation, value=self.value)


class LoopHistogram:
    """A histogram the event loop's thread alone adds to (exported by :class:`LoopMetrics`),
    with the buckets and samples of prometheus_client's."""

    def __init__(self, name: str, documentation: str, buckets: Sequence[float]) -> None:
        self.name, self.documentation = name, documentation
        self.bounds = tuple(buckets)
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        # A value on a bound counts in that bound's bucket (le: less than or equal).
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.sum += seconds

    def family(self) -> Metric:
        buckets, total = [], 0
        labels = (*map(floatToGoString, self.bounds), "+Inf")
        for bound, count in zip(labels, self.counts, strict=True):
            total += count
            buckets.append((bound, float(total)))
        family = HistogramMetricFamily(self.name, self.documentation)
        family.add_metric([], buckets, self.sum)
        return family


class LoopMetrics(Collector):
    """The :class:`LoopCounter` and :class:`LoopHistogram` of one server, as metric families at
    each scrape (read in the event loop's thread too: /metrics is served there)."""

    def __init__(self) -> None:
        self.metrics: list[LoopCounter | LoopHistogram] = []

    def counter(self, name: str, documentation: str) -> LoopCounter:
        """A new counter, exported from now on."""
        counter = LoopCounter(name, documentation)
        self.metrics.append(counter)
        return counter

    def histogram(
        self, name: str, documentation: str, buckets: Sequence[float] = TIMES
    ) -> LoopHistogram:
        """A new histogram, exported from now on."""
        histogram = LoopHistogram(name, documentation, buckets)
        self.metrics.append(histogram)
        return histogram

    def collect(self) -> Iterator[Metric]:
        for metric in self.metrics:
            yield metric.family()


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        loop = LoopMetrics()
        self.registry.register(loop)
        # The process's CPU seconds, memory and open files (process_*), read with the counters
        # below in one scrape: CPU per action over exactly the same span as the actions.
        ProcessCollector(registry=self.registry)
        self.tables = Gauge(
            "rummyhall_live_tables", "Tables with a live actor", registry=self.registry
        )
        self.connections = Gauge(
            "rummyhall_connections", "Open WebSocket connections", registry=self.registry
        )
        self.actions = loop.counter(
            "rummyhall_actions", "Game actions accepted (players, bots, timeouts, deals)"
        )
        self.latency = loop.histogram(
            "rummyhall_action_seconds",
            "From an action's arrival at its table to its commit and broadcast",
        )
        # The table writer (server/writer.py): an action's wait for its durable commit is most of
        # the time above; its batches say how many actions share a commit.
        self.writer_commits = loop.counter(
            "rummyhall_writer_commits", "Transactions the table writer committed"
        )
        self.writer_jobs = loop.counter(
            "rummyhall_writer_jobs", "Jobs (a table's log entries, a buy-in...) those committed"
        )
        self.writer_wait = loop.histogram(
            "rummyhall_writer_wait_seconds",
            "From a job's arrival at the table writer to its commit",
        )
        self.sqlite_commit = loop.histogram(
            "rummyhall_sqlite_commit_seconds",
            "The COMMIT of the table writer's transactions on SQLite (the disk's sync, mostly)",
        )
        # Everything of one process shares its event loop: how late it runs a timer says whether
        # it has more work than it can do (a lag of tens of ms delays every table).
        self.loop_lag = Histogram(
            "rummyhall_loop_lag_seconds",
            f"How late the event loop ran a timer set every {LAG_PROBE_S * 1000:.0f} ms",
            buckets=TIMES,
            registry=self.registry,
        )
        self._lag_timer: asyncio.TimerHandle | None = None
        self.messages = loop.counter("rummyhall_messages_sent", "Messages queued to connections")
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

    def watch_loop(self) -> None:
        """Time the running event loop's lag from now on (until :meth:`unwatch_loop`): a timer
        every :data:`LAG_PROBE_S` on the loop's own clock (not the server's injected one: this
        measures the real loop)."""
        if self._lag_timer is not None:  # (once is enough)
            return
        loop = asyncio.get_running_loop()
        due = loop.time() + LAG_PROBE_S
        self._lag_timer = loop.call_at(due, self._probe, loop, due)

    def _probe(self, loop: asyncio.AbstractEventLoop, due: float) -> None:
        now = loop.time()
        self.loop_lag.observe(max(0.0, now - due))
        self._lag_timer = loop.call_at(now + LAG_PROBE_S, self._probe, loop, now + LAG_PROBE_S)

    def unwatch_loop(self) -> None:
        if self._lag_timer is not None:
            self._lag_timer.cancel()
            self._lag_timer = None

    def committed(self, waits: list[float]) -> None:
        """The table writer committed jobs that waited ``waits`` seconds each."""
        self.writer_commits.inc()
        self.writer_jobs.inc(len(waits))
        for wait in waits:
            self.writer_wait.observe(wait)

    def action(self, seconds: float) -> None:
        self.actions.inc()
        self.latency.observe(seconds)

    def sent(self, count: int) -> None:
        self.messages.inc(count)

    def error(self, code: str) -> None:
        self.errors.labels(code=code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
