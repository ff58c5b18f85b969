"""Check a lock file's pinned packages for known vulnerabilities with pip-audit (``make
audit-deps``), and say plainly when that could not be done.

pip-audit asks a vulnerability service about each pin: PyPI's JSON API (``pypi``, its default)
or OSV (``osv``). Without a reachable service it does not fail the way one would hope: with the
PyPI service, a package the service does not answer for is *skipped*, and when every package is
skipped pip-audit still prints "No known vulnerabilities found" and exits 0 (with OSV it crashes
with a connection error). So this script reads pip-audit's JSON report and believes a service
only if

1. it reports the known vulnerability of a canary pin (requests 2.19.0: CVE-2018-18074), so a
   service that answers but knows nothing (an empty mirror) is not taken for a clean bill; and
2. it audited every pin of the lock file (none skipped).

Exit status: 0 every pin was checked and none has a known vulnerability; 1 some have (listed);
2 nothing could be checked (no service was usable: the reasons are printed). Never 0 unless the
check really ran.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SERVICES = ("pypi", "osv")
CANARY = "requests==2.19.0"
CANARY_VULN = "CVE-2018-18074"
TIMEOUT_S = 20


class Unusable(Exception):
    """This service could not be used; the message says why."""


@dataclass
class Report:
    service: str
    checked: list[tuple[str, str]] = field(default_factory=list)
    vulnerable: list[tuple[str, str, list[dict[str, Any]]]] = field(default_factory=list)


def run_pip_audit(pip_audit: str, requirements: Path, service: str) -> list[dict[str, Any]]:
    """pip-audit's dependency entries for ``requirements`` (pinned; nothing is installed)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        command = [
            pip_audit,
            "--requirement", str(requirements),
            "--no-deps", "--disable-pip",  # the lock pins everything: read it, install nothing
            "--vulnerability-service", service,
            "--timeout", str(TIMEOUT_S),
            "--format", "json", "--output", str(out),
            "--progress-spinner", "off",
        ]  # fmt: skip
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise Unusable(f"pip-audit did not run: {error}") from error
        if not out.exists() or not out.read_text().strip():
            lines = (done.stderr or done.stdout).strip().splitlines()
            raise Unusable(
                f"pip-audit failed (exit {done.returncode}): {lines[-1] if lines else 'no output'}"
            )
        report = json.loads(out.read_text())
    dependencies: list[dict[str, Any]] = report.get("dependencies", [])
    return dependencies


def audit_with(pip_audit: str, lock: Path, service: str) -> Report:
    with tempfile.TemporaryDirectory() as folder:
        canary = Path(folder) / "canary.txt"
        canary.write_text(CANARY + "\n")
        found = run_pip_audit(pip_audit, canary, service)
    known = {
        name
        for dep in found
        for vuln in dep.get("vulns", [])
        for name in (vuln.get("id"), *vuln.get("aliases", []))
    }
    if CANARY_VULN not in known:
        skipped = [dep.get("skip_reason") for dep in found if dep.get("skip_reason")]
        why = skipped[0] if skipped else "it reported nothing"
        raise Unusable(f"it does not know {CANARY_VULN} of {CANARY} ({why})")
    report = Report(service)
    skipped = []
    for dep in run_pip_audit(pip_audit, lock, service):
        if "skip_reason" in dep:
            skipped.append(f"{dep['name']}: {dep['skip_reason']}")
            continue
        report.checked.append((dep["name"], dep["version"]))
        if dep.get("vulns"):
            report.vulnerable.append((dep["name"], dep["version"], dep["vulns"]))
    if skipped:
        raise Unusable(
            f"{len(skipped)} of {len(skipped) + len(report.checked)} pins were not audited "
            f"(first: {skipped[0]})"
        )
    if not report.checked:
        raise Unusable("pip-audit found no pins in the lock file")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lock", type=Path, help="a requirements file pinned with hashes")
    parser.add_argument("--pip-audit", default="pip-audit", help="the pip-audit program")
    parser.add_argument(
        "--service", action="append", choices=SERVICES, help="the services to try, in order"
    )
    args = parser.parse_args(argv)
    reasons = []
    for service in args.service or SERVICES:
        try:
            report = audit_with(args.pip_audit, args.lock, service)
        except Unusable as error:
            reasons.append(f"  {service}: {error}")
            continue
        where = f"{len(report.checked)} pins of {args.lock} against the {service} service"
        if report.vulnerable:
            print(f"audit-deps: KNOWN VULNERABILITIES in {where}:")
            for name, version, vulns in report.vulnerable:
                for vuln in vulns:
                    fixes = ", ".join(vuln.get("fix_versions", [])) or "none yet"
                    print(f"  {name} {version}: {vuln.get('id')} (fixed in: {fixes})")
            print("Raise the pins (make lock UPGRADE=1, or a range in pyproject.toml) and rerun.")
            return 1
        print(f"audit-deps: checked {where}: no known vulnerabilities.")
        return 0
    print(f"audit-deps: COULD NOT CHECK {args.lock}: no vulnerability service was usable.")
    print("\n".join(reasons))
    print(
        "Nothing was checked, so nothing is known to be safe. Run `make audit-deps` where "
        "pypi.org's JSON API or api.osv.dev can be reached."
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
