"""The loop's own counters and histograms (server/metrics.py) read as prometheus_client's do."""

from __future__ import annotations

import random

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from rummyhall.server.metrics import TIMES, LoopMetrics, Metrics


def _samples(text: str, prefix: str) -> dict[str, str]:
    return {
        line.rsplit(" ", 1)[0]: line.rsplit(" ", 1)[1]
        for line in text.splitlines()
        if line.startswith(prefix) and not line.startswith(f"{prefix}_created")
    }


def test_a_histogram_and_a_counter_of_the_loop_expose_what_prometheus_clients_would() -> None:
    rng = random.Random(7)
    # On every bound (le: less or equal), either side of them, zero and beyond the last.
    values = [*TIMES, *(b * 0.999 for b in TIMES), *(b * 1.001 for b in TIMES), 0.0, 3.0]
    values += [rng.uniform(0, 1.2) for _ in range(500)]
    theirs, ours = CollectorRegistry(), CollectorRegistry()
    loop = LoopMetrics()
    ours.register(loop)
    histogram = Histogram("t_seconds", "doc", buckets=TIMES, registry=theirs)
    counter = Counter("t_things", "doc", registry=theirs)
    times = loop.histogram("t_seconds", "doc", TIMES)
    tally = loop.counter("t_things", "doc")
    for value in values:
        histogram.observe(value)
        times.observe(value)
        counter.inc(2)
        tally.inc(2)
    a, b = generate_latest(theirs).decode(), generate_latest(ours).decode()
    assert _samples(b, "t_seconds_bucket") == _samples(a, "t_seconds_bucket")
    assert len(_samples(b, "t_seconds_bucket")) == len(TIMES) + 1
    assert _samples(b, "t_seconds_count") == _samples(a, "t_seconds_count")
    assert float(_samples(b, "t_seconds_sum")["t_seconds_sum"]) == sum(values)
    assert (
        _samples(b, "t_things_total")
        == _samples(a, "t_things_total")
        == {"t_things_total": f"{2.0 * len(values)}"}
    )


def test_the_servers_figures_of_every_action_are_on_its_metrics_page() -> None:
    metrics = Metrics()
    metrics.action(0.003)
    metrics.committed([0.001, 0.2])
    metrics.sent(4)
    text = metrics.render().decode()
    assert "rummyhall_actions_total 1.0" in text
    assert 'rummyhall_action_seconds_bucket{le="0.005"} 1.0' in text
    assert "rummyhall_writer_commits_total 1.0" in text
    assert "rummyhall_writer_jobs_total 2.0" in text
    assert 'rummyhall_writer_wait_seconds_bucket{le="0.1"} 1.0' in text
    assert "rummyhall_writer_wait_seconds_count 2.0" in text
    assert "rummyhall_messages_sent_total 4.0" in text
    assert "rummyhall_sqlite_commit_seconds_count 0.0" in text
