"""A throwaway nginx in front of test servers (issue 21: several nodes behind one address).

Debian's ``nginx``, started in the foreground (``daemon off``) with a configuration generated
into a temporary folder around the site configuration the room ships (deploy/nginx/
rummyhall.conf): it listens on 127.0.0.1 on a free port and passes every request to the
``upstreams`` the test gives (``"127.0.0.1:PORT"`` each), WebSocket upgrades included. Its pid
file, error and access logs and temporary files are all in the folder, so it never touches
/etc/nginx or /var/log/nginx. As root it runs as ``www-data`` (``nobody``
without it), master and workers alike, like tests/pg.py and tests/redis_server.py run theirs.

:func:`start` returns once nginx accepts connections; :meth:`NginxServer.stop` ends it and
deletes its folder. Without the binary :func:`start` raises :class:`NginxUnavailable`;
tests/conftest.py skips on it, or fails under CI=true.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from redis_server import free_port, service_user

STARTUP_S = 20.0
"""How long nginx may take to accept its first connection (a deadline, not a wait)."""


class NginxUnavailable(Exception):
    """nginx cannot be started here; the message says why."""


def find_binary() -> str | None:
    return shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None
    )


SITE = Path(__file__).resolve().parent.parent / "deploy" / "nginx" / "rummyhall.conf"
"""The site configuration the room ships for operators: the tests run nginx with it."""

_LISTEN = "    listen 80;\n"
_NODES = "    include /etc/nginx/rummyhall-nodes.conf;\n"


def site(root: Path, port: int, balance: str = "") -> str:
    """deploy/nginx/rummyhall.conf as the tests run it: listening on 127.0.0.1:``port``, its
    nodes read from ``root``/nodes.conf, and ``balance`` (an upstream directive such as
    ``ip_hash;`` or ``hash $arg_table consistent;``) before them (round robin when empty)."""
    text = SITE.read_text()
    for line in (_LISTEN, _NODES):
        if text.count(line) != 1:
            raise ValueError(f"{SITE} no longer has the line {line.strip()!r} once")
    text = text.replace(_LISTEN, f"    listen 127.0.0.1:{port};\n")
    return text.replace(_NODES, f"    {balance}\n    include {root / 'nodes.conf'};\n")


def nodes(upstreams: Sequence[str]) -> str:
    """The nodes file: one ``server`` line per upstream (``"127.0.0.1:PORT"``), never left out
    after failures (a test's node is down only when the test says so)."""
    if not upstreams:
        raise ValueError("nginx needs at least one upstream")
    return "".join(f"server {address} max_fails=0;\n" for address in upstreams)


def config(
    root: Path, port: int, upstreams: Sequence[str], balance: str = "", connections: int = 512
) -> str:
    """The whole nginx.conf: the process's settings, all in ``root``, and the shipped site
    (:func:`site`) in its http block; writes the nodes file beside it. ``connections``: the
    worker's connections (a proxied WebSocket takes two: the browser's and the node's)."""
    (root / "nodes.conf").write_text(nodes(upstreams))
    temp = "\n".join(
        f"    {kind}_temp_path {root / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""\
daemon off;
master_process on;
worker_processes 1;
worker_rlimit_nofile {connections + 64};
pid {root / "nginx.pid"};
error_log {root / "error.log"} info;

events {{
    worker_connections {connections};
}}

http {{
    access_log {root / "access.log"};
{temp}

{site(root, port, balance)}
}}
"""


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


@dataclass
class NginxServer:
    """A running throwaway nginx; ``stop()`` ends it and deletes its folder."""

    root: Path
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def error_log(self) -> str:
        path = self.root / "error.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: workers finish, then exit
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.terminate()  # fast shutdown (the master ends its workers)
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def start(upstreams: Sequence[str], *, balance: str = "", connections: int = 512) -> NginxServer:
    """Start nginx in front of ``upstreams``, or raise NginxUnavailable with the reason
    (``connections``: see :func:`config`; bench/load.py holds thousands)."""
    binary = find_binary()
    if binary is None:
        raise NginxUnavailable("`nginx` not found on PATH; install the Debian package `nginx`")
    user = service_user("www-data")
    # Outside /tmp/pytest-of-root (mode 0700), so that nginx's user can reach it.
    root = Path(tempfile.mkdtemp(prefix="rummyhall-nginx-"))
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    failure = ""
    for _attempt in range(3):  # the free port may be taken between the probe and the start
        port = free_port()
        conf = root / "nginx.conf"
        conf.write_text(config(root, port, upstreams, balance, connections))
        # -e: the error log before the configuration is read (else /var/log/nginx/error.log)
        command = [binary, "-p", str(root), "-c", str(conf), "-e", str(root / "error.log")]
        with (root / "stderr.log").open("wb") as stderr:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                user=None if user is None else user.pw_uid,
                group=None if user is None else user.pw_gid,
                extra_groups=None if user is None else [],
            )
        server = NginxServer(root=root, port=port, process=process)
        deadline = time.monotonic() + STARTUP_S
        while process.poll() is None and time.monotonic() < deadline:
            if (root / "nginx.pid").exists() and _accepts(port):
                return server
            time.sleep(0.02)  # polling nginx's state, with a deadline
        if process.poll() is None:
            process.kill()
        process.wait()
        said = (root / "stderr.log").read_text(errors="replace").strip()
        failure = (
            f"nginx did not start on port {port} (exit {process.returncode}): "
            f"{said}\n{server.error_log}"
        )
    shutil.rmtree(root, ignore_errors=True)
    raise NginxUnavailable(failure)
