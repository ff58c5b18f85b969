"""The dependency locks and their audit, offline.

requirements.lock pins the deployed set (pyproject.toml's runtime dependencies and its build
requirements), requirements-test.lock the same plus the test extras; ``make lock`` writes both.
These tests fail when pyproject.toml and the locks drift apart: every declared dependency pinned
with ``==`` at a version inside its declared range, every pin with sha256 hashes (so that
``pip install --require-hashes -r requirements.lock`` works), the test lock agreeing with the
deployed one. tools/audit_deps.py (``make audit-deps``) is run against a stand-in pip-audit to
check that it never reports "no known vulnerabilities" when nothing was checked."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCK = ROOT / "requirements.lock"
TEST_LOCK = ROOT / "requirements-test.lock"
AUDIT = ROOT / "tools" / "audit_deps.py"

_PIN = re.compile(
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(;(?P<marker>[^\\]*))?"
)
_HASH = re.compile(r"--hash=sha256:(?P<hex>[0-9a-f]+)")


@dataclass
class Pin:
    version: str
    marker: str | None
    hashes: list[str] = field(default_factory=list)


def read_lock(path: Path) -> dict[str, Pin]:
    """The pins of a requirements file (``name==version [; marker]`` with ``--hash`` options on
    continuation lines); anything else that is not a comment fails the test."""
    text = path.read_text(encoding="utf-8")
    pins: dict[str, Pin] = {}
    current: Pin | None = None
    for raw in text.splitlines():
        line = raw.strip().removesuffix("\\").strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("--hash="):
            found = _HASH.fullmatch(line)
            assert found and current is not None, f"{path.name}: stray or bad hash {line!r}"
            current.hashes.append(found["hex"])
            continue
        pinned = _PIN.fullmatch(line)
        assert pinned, f"{path.name}: not a pin with ==: {line!r}"
        name = canonicalize_name(pinned["name"])
        assert name not in pins, f"{path.name}: {name} pinned twice"
        marker = pinned["marker"].strip() if pinned["marker"] else None
        current = pins[name] = Pin(pinned["version"], marker)
    return pins


def declared(*, extras: tuple[str, ...] = ()) -> list[Requirement]:
    project = PYPROJECT["project"]
    names = [*project["dependencies"], *PYPROJECT["build-system"]["requires"]]
    for extra in extras:
        names += project["optional-dependencies"][extra]
    return [Requirement(text) for text in names]


@pytest.mark.parametrize(
    ("lock", "extras"), [(LOCK, ()), (TEST_LOCK, ("test",))], ids=["deployed", "test"]
)
def test_the_lock_pins_every_declared_dependency_inside_its_range(
    lock: Path, extras: tuple[str, ...]
) -> None:
    pins = read_lock(lock)
    problems = []
    for requirement in declared(extras=extras):
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            problems.append(f"{requirement} is not pinned")
        elif not requirement.specifier.contains(pin.version, prereleases=True):
            problems.append(f"{requirement} is pinned at {pin.version}, outside its range")
    assert problems == [], f"{lock.name} is out of date: run `make lock`\n" + "\n".join(problems)


@pytest.mark.parametrize("lock", [LOCK, TEST_LOCK], ids=["deployed", "test"])
def test_every_pin_has_sha256_hashes(lock: Path) -> None:
    pins = read_lock(lock)
    assert len(pins) >= len(declared())
    for name, pin in pins.items():
        assert pin.hashes, f"{name} has no hash"
        assert all(len(digest) == 64 for digest in pin.hashes), name


def test_the_test_lock_runs_the_deployed_versions() -> None:
    deployed, tested = read_lock(LOCK), read_lock(TEST_LOCK)
    assert deployed.keys() <= tested.keys()
    differ = {n: (p.version, tested[n].version) for n, p in deployed.items() if tested[n] != p}
    assert differ == {}


def test_the_locks_say_how_they_were_made() -> None:
    for lock in (LOCK, TEST_LOCK):
        assert "make lock" in lock.read_text(encoding="utf-8").split("\n", 3)[1], lock.name


# --- tools/audit_deps.py against a stand-in pip-audit ------------------------------------------

FAKE = """\
import json, os, sys
args = sys.argv[1:]
value = lambda flag: args[args.index(flag) + 1]
plan = json.loads(os.environ["FAKE_PLAN"])[value("--vulnerability-service")]
names = [line.split("==")[0] for line in open(value("--requirement"))
         if "==" in line and not line.lstrip().startswith("#")]
canary = names == ["requests"]
how = plan["canary" if canary else "lock"]
if how == "crash":
    sys.exit("requests.exceptions.ConnectionError: cannot resolve the host")
deps = []
for n, name in enumerate(names):
    if how == "skip" or (how == "partial" and n == 1):
        deps.append({"name": name, "skip_reason": f"Dependency not found on PyPI: {name}"})
        continue
    vulns = []
    if how == "known" or (how == "vulnerable" and n == 0):
        vulns = [{"id": "PYSEC-1", "aliases": ["CVE-2018-18074"], "fix_versions": ["9.9"]}]
    deps.append({"name": name, "version": "1.0", "vulns": vulns})
open(value("--output"), "w").write(json.dumps({"dependencies": deps, "fixes": []}))
print("No known vulnerabilities found", file=sys.stderr)
"""


def _audit(tmp_path: Path, plan: dict[str, dict[str, str]]) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "pip-audit"
    fake.write_text(f"#!{sys.executable}\n{FAKE}")
    fake.chmod(0o755)
    lock = tmp_path / "requirements.lock"
    lock.write_text("fastapi==1.0 \\\n    --hash=sha256:00\nuvicorn==1.0\norjson==1.0\n")
    return subprocess.run(
        [sys.executable, str(AUDIT), "--pip-audit", str(fake), str(lock)],
        capture_output=True, text=True, check=False,
        env={"FAKE_PLAN": json.dumps(plan), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip


def test_an_audit_that_reached_nothing_says_it_could_not_check(tmp_path: Path) -> None:
    # What this sandbox does: the PyPI service skips every package, OSV cannot be resolved.
    done = _audit(
        tmp_path, {"pypi": {"canary": "skip", "lock": "skip"}, "osv": {"canary": "crash"}}
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "COULD NOT CHECK" in done.stdout
    assert "no known vulnerabilities" not in done.stdout.lower()


def test_a_service_that_knows_nothing_is_not_believed(tmp_path: Path) -> None:
    """An empty mirror answers for every package with no vulnerabilities: the canary's known
    vulnerability is missing, so its clean answer about the lock means nothing."""
    plan = {"pypi": {"canary": "clean", "lock": "clean"}, "osv": {"canary": "clean"}}
    done = _audit(tmp_path, plan)
    assert (done.returncode, "COULD NOT CHECK" in done.stdout) == (2, True), done.stdout


def test_some_pins_skipped_is_not_a_clean_bill(tmp_path: Path) -> None:
    plan = {"pypi": {"canary": "known", "lock": "partial"}, "osv": {"canary": "crash"}}
    done = _audit(tmp_path, plan)
    assert done.returncode == 2 and "1 of 3 pins were not audited" in done.stdout, done.stdout


def test_a_clean_lock_and_a_vulnerable_one(tmp_path: Path) -> None:
    clean = _audit(tmp_path, {"pypi": {"canary": "known", "lock": "clean"}})
    assert clean.returncode == 0, clean.stdout
    assert "checked 3 pins" in clean.stdout and "no known vulnerabilities" in clean.stdout
    # The first service cannot be used, the second can.
    plan = {"pypi": {"canary": "crash"}, "osv": {"canary": "known", "lock": "vulnerable"}}
    found = _audit(tmp_path, plan)
    assert found.returncode == 1, found.stdout
    assert "KNOWN VULNERABILITIES" in found.stdout and "osv service" in found.stdout
    assert "fastapi 1.0: PYSEC-1 (fixed in: 9.9)" in found.stdout
