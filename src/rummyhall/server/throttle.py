"""Token buckets keyed by a client address or an account name, on the server's injected clock.

Our own rather than a library's: the rate-limit packages read the system time themselves, and the
room's timers (and its tests) run on :class:`~rummyhall.server.clock.Clock`, so a lockout can be
lifted by advancing a fake clock instead of sleeping. The algorithm is a few lines."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rummyhall.server.clock import Clock


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: int  # ms, when ``tokens`` was last brought up to date


class Buckets:
    """One token bucket per key: ``burst`` tokens at first, refilled at ``per_minute``.

    At most ``max_keys`` buckets are kept (a flood of made-up names or addresses must not grow
    memory without end): past that, full buckets (which remember nothing) are dropped first, then
    the least recently used."""

    def __init__(self, clock: Clock, *, per_minute: float, burst: int, max_keys: int = 50_000):
        self.clock = clock
        self.per_ms = max(per_minute, 0.0) / 60_000
        self.burst = max(1, burst)
        self.max_keys = max_keys
        self._buckets: dict[str, _Bucket] = {}

    def _bucket(self, key: str) -> _Bucket:
        now = self.clock.now()
        bucket = self._buckets.pop(key, None)  # re-inserted last: dicts keep insertion order
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.per_ms)
            bucket.at = now
        self._buckets[key] = bucket
        if len(self._buckets) > self.max_keys:
            self._prune()
        return bucket

    def _wait_ms(self, bucket: _Bucket) -> int:
        missing = 1.0 - bucket.tokens
        if missing <= 0:
            return 0
        return math.ceil(missing / self.per_ms) if self.per_ms > 0 else 3_600_000

    def retry_after(self, key: str) -> int:
        """0 if ``key`` has a token now, else the ms until it has one (nothing is spent)."""
        if key not in self._buckets:
            return 0
        return self._wait_ms(self._bucket(key))

    def take(self, key: str) -> int:
        """Spend a token of ``key``: 0 when there was one, else the ms until there is one (and
        nothing is spent)."""
        bucket = self._bucket(key)
        wait = self._wait_ms(bucket)
        if wait == 0:
            bucket.tokens -= 1.0
        return wait

    def _prune(self) -> None:
        now = self.clock.now()
        for key, bucket in list(self._buckets.items()):
            if bucket.tokens + (now - bucket.at) * self.per_ms >= self.burst:
                del self._buckets[key]
        # Down to nine tenths, so that a flood of new keys prunes once in a while, not each time.
        while len(self._buckets) > self.max_keys * 9 // 10:
            del self._buckets[next(iter(self._buckets))]

    def __len__(self) -> int:
        return len(self._buckets)
