"""deploy/ stays true to the room: every node it starts (compose.yaml, the systemd unit) gives
options `rummyhall serve` takes, the nodes of one room share its database, Redis and seed key
and differ in their node ids, and every file the configurations name is in the repository.
(The nginx site itself is what tests/nginx_server.py runs the cluster tests through.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from rummyhall.cli import build_parser

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def _serve(argv: list[str]) -> Any:
    args = build_parser().parse_args(argv)
    assert args.command == "serve"
    return args


def test_the_compose_nodes_are_one_room_of_distinct_nodes() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    nodes = {name: service for name, service in services.items() if name.startswith("node")}
    assert len(nodes) == 3
    parsed = {name: _serve(service["command"]) for name, service in nodes.items()}
    assert len({args.node_id for args in parsed.values()}) == 3
    for args in parsed.values():
        assert args.database.startswith("postgresql+asyncpg://")
        assert args.database == parsed["node1"].database
        assert args.redis == parsed["node1"].redis
        assert args.data_dir == Path("/var/lib/rummyhall")
    # the shared data folder (seed key, admin token) is one volume for all
    mounts = {tuple(service["volumes"]) for service in nodes.values()}
    assert mounts == {("keys:/var/lib/rummyhall",)}
    # nginx's files are the repository's, and name the compose nodes
    for volume in services["nginx"]["volumes"]:
        source = volume.split(":", 1)[0]
        assert (DEPLOY / source).is_file(), source
    nodes_conf = (DEPLOY / "nginx" / "compose-nodes.conf").read_text()
    assert sorted(re.findall(r"^server (\w+):8000", nodes_conf, re.M)) == sorted(nodes)


def test_the_systemd_unit_starts_a_node_with_the_shared_settings() -> None:
    unit = (DEPLOY / "systemd" / "rummyhall@.service").read_text()
    command = re.search(r"^ExecStart=(.*?)(?<!\\)$", unit, re.M | re.S)
    assert command is not None
    env = dict(
        line.split("=", 1)
        for line in (DEPLOY / "systemd" / "rummyhall.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    text = command.group(1).replace("\\\n", " ")
    text = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], text)
    text = text.replace("%H", "host").replace("%i", "1")
    argv = text.split()
    assert argv[0].endswith("/rummyhall")
    args = _serve(argv[1:])
    assert args.node_id == "host-1"
    assert args.redis == env["RUMMYHALL_REDIS"]


def test_the_image_copies_what_is_there() -> None:
    root = DEPLOY.parent
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (root / source).exists(), source
