"""A throwaway Redis server for the test suite (issue 21: leases, and later what nodes share).

Debian's ``redis-server``, started in the foreground in a temporary folder, listening on
127.0.0.1 on a free port, with persistence switched off (no RDB snapshots, no append-only file:
the data is thrown away). As root (the suite runs as root in CI) the server runs as the
``redis`` system user that the Debian package creates (``nobody`` without it): a server
reachable over the network has no business running as root, and the tests should run it the
way it is deployed.

:func:`start` returns when the server answers ``PING``; :meth:`RedisServer.stop` ends it and
deletes its folder. Without the binary :func:`start` raises :class:`RedisUnavailable` with the
reason; tests/conftest.py skips on it, or fails under CI=true.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

STARTUP_S = 20.0
"""How long a server may take to answer its first PING (a deadline, not a wait)."""


class RedisUnavailable(Exception):
    """Redis cannot be started here; the message says why."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def service_user(*names: str) -> pwd.struct_passwd | None:
    """As root: the first of ``names`` (then ``nobody``) that exists, to run a server as;
    otherwise None (the server runs as whoever runs the tests)."""
    if os.geteuid() != 0:
        return None
    for name in (*names, "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    return None


def _ping(port: int) -> bool:
    """Whether a server on ``port`` answers PING (inline command, plain socket)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisServer:
    """A running throwaway server; ``stop()`` ends it and deletes its folder."""

    root: Path
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log(self) -> str:
        path = self.root / "redis.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: a clean shutdown (nothing to save)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def find_binary() -> str | None:
    return shutil.which("redis-server") or next(
        (path for path in ("/usr/bin/redis-server",) if os.access(path, os.X_OK)), None
    )


def start() -> RedisServer:
    """Start a throwaway server, or raise RedisUnavailable with the reason."""
    binary = find_binary()
    if binary is None:
        raise RedisUnavailable(
            "`redis-server` not found on PATH; install the Debian package `redis-server`"
        )
    user = service_user("redis")
    # Outside /tmp/pytest-of-root (mode 0700), so that the server's user can reach it.
    root = Path(tempfile.mkdtemp(prefix="rummyhall-redis-"))
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    failure = ""
    for _attempt in range(3):  # the free port may be taken between the probe and the start
        port = free_port()
        command = [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--protected-mode",
            "yes",
            "--daemonize",
            "no",
            "--dir",
            str(root),
            "--logfile",
            str(root / "redis.log"),
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            user=None if user is None else user.pw_uid,
            group=None if user is None else user.pw_gid,
            extra_groups=None if user is None else [],
        )
        server = RedisServer(root=root, port=port, process=process)
        deadline = time.monotonic() + STARTUP_S
        while process.poll() is None and time.monotonic() < deadline:
            if _ping(port):
                return server
            time.sleep(0.02)  # polling the server's state, with a deadline
        failure = f"redis-server did not answer on port {port} (exit {process.poll()}):\n"
        failure += server.log
        if process.poll() is None:
            process.kill()
            process.wait()
    shutil.rmtree(root, ignore_errors=True)
    raise RedisUnavailable(failure)
