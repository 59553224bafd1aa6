"""The FinOps Foundation's focus-validator (PyPI ``focus-validator``, FOCUS 1.2 rules), run offline on a file.

Where it is: ``$TRAINLEDGER_FOCUS_VALIDATOR`` (the ``focus-validator`` executable of a Python 3.12 venv), else
the repo's ``.venv-focus`` that ``make focus-validator`` builds (``make test`` does when a python3.12 is
found). Tests skip, saying so, when neither exists.

How its answer is read: every rule it reports as FAIL counts, except where the validator cannot evaluate a
rule as FOCUS states it. A composite whose requirement is an OR of other rules holds for a row when one
alternative holds for that row; the validator instead checks each alternative against the whole column.
So (1) when the OR passed, the alternative that did not hold is still listed as a failure, and (2) an OR
of "X MUST be null when ..." and "X MUST NOT be null when ..." (InvoiceId-C-003-C: null for a charge on
no invoice yet, not null for one on an invoice) fails for any file holding both kinds of charge, though
every row satisfies it (its conditions are not in the validator's model). Neither is counted, nor a
parent that failed only through them; everything else is.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENV = "TRAINLEDGER_FOCUS_VALIDATOR"
VERSION = "1.2"
_AND_FAILED = re.compile(
    r"FAIL .*?msg=([A-Za-z0-9]+-[A-Z]-\d{3}-[A-Z]): AND failed - failed child rules: \[([^\]]*)\]"
)
_RESULT = re.compile(r"^\S+\s+([A-Za-z0-9]+-[A-Z]-\d{3}-[A-Z]): (PASS|FAIL|SKIPPED)\b", re.MULTILINE)


def find() -> Path | None:
    """The focus-validator executable, or None."""
    configured = os.environ.get(ENV)
    if configured:
        return Path(configured)
    cached = ROOT / ".venv-focus" / "bin" / "focus-validator"
    return cached if cached.is_file() else None


def _site_packages(executable: Path) -> Path:
    """It reads its currency list relative to the working folder, so it runs from its site-packages."""
    python = executable.parent / "python"
    out = subprocess.run(
        [
            str(python),
            "-I",
            "-c",
            "import focus_validator, pathlib; print(pathlib.Path(focus_validator.__file__).parent)",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Path(out)


def _or_rules(package: Path) -> tuple[dict[str, list[str]], set[str]]:
    """From the validator's own model: composite rule -> the rules its OR chooses between, and the ORs
    that hold for every row (one alternative requires a column null, the other not null)."""
    models = sorted((package / "rules").glob(f"model-{VERSION}*.json"))
    rules: dict[str, dict[str, Any]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, dict) and isinstance(value.get("ValidationCriteria"), dict):
                    rules[key] = value["ValidationCriteria"].get("Requirement") or {}
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(models[-1].read_text(encoding="utf-8")))
    alternatives: dict[str, list[str]] = {}
    always: set[str] = set()
    for rule, requirement in rules.items():
        if requirement.get("CheckFunction") != "OR":
            continue
        refs = [i["ModelRuleId"] for i in requirement.get("Items", []) if "ModelRuleId" in i]
        if not refs:
            continue
        alternatives[rule] = refs
        checks = {
            (r.get("CheckFunction"), r.get("ColumnName"))
            for r in (rules.get(ref, {}) for ref in refs)
            if "Value" in r and r["Value"] is None
        }
        columns = {column for _, column in checks}
        if len(columns) == 1 and {f for f, _ in checks} == {"CheckValue", "CheckNotValue"}:
            always.add(rule)
    return alternatives, always


def offline_versions(executable: Path) -> str:
    """What the validator answers, offline, when asked for FOCUS 1.3: its own word on the versions it has."""
    package = _site_packages(executable)
    result = subprocess.run(
        [str(executable), "--data-file", os.devnull, "--validate-version", "1.3", "--block-download"],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return result.stdout + result.stderr


@dataclass
class Verdict:
    passed: list[str]
    failed: list[str]  # what counts (see the module docstring)
    excused: list[str]  # see the module docstring
    output: str


def validate(executable: Path, data: Path) -> Verdict:
    package = _site_packages(executable)
    result = subprocess.run(
        [
            str(executable),
            "--data-file",
            str(data),
            "--validate-version",
            VERSION,
            "--block-download",
            "--output-type",
            "console",
        ],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    statuses = {rule: status for rule, status in _RESULT.findall(result.stdout)}
    if not statuses:
        raise AssertionError(
            f"focus-validator gave no rule results (exit {result.returncode}):\n{result.stderr[-3000:]}"
        )
    alternatives, always = _or_rules(package)
    excused: set[str] = set()
    for composite, alts in alternatives.items():
        if statuses.get(composite) == "PASS" or composite in always:
            excused.update(alt for alt in alts if statuses.get(alt) == "FAIL")
            if statuses.get(composite) == "FAIL":
                excused.add(composite)
    parents = {
        rule: [c.strip() for c in children.split(",")]
        for rule, children in _AND_FAILED.findall(result.stdout)
    }
    while True:
        more = {
            rule for rule, children in parents.items() if rule not in excused and set(children) <= excused
        }
        if not more:
            break
        excused |= more
    failed = sorted(r for r, s in statuses.items() if s == "FAIL")
    return Verdict(
        passed=sorted(r for r, s in statuses.items() if s == "PASS"),
        failed=[r for r in failed if r not in excused],
        excused=[r for r in failed if r in excused],
        output=result.stdout,
    )
