"""The import direction of ARCHITECTURE.md: a stage imports only the stages before it in the table.

The contracts are import-linter's, in pyproject.toml; they read every import statement, lazy ones inside
functions and those for type checking included.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from conftest import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(src)},
    )


def test_every_import_runs_from_a_stage_to_one_before_it(tmp_path: Path) -> None:
    result = _lint(ROOT / "src", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def test_an_upward_import_inside_a_function_breaks_the_contract(tmp_path: Path) -> None:
    """A copy of the package with one planted lazy import from core/ up to reports/."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "trainledger", src / "trainledger")
    money = src / "trainledger" / "core" / "money.py"
    money.write_text(
        money.read_text(encoding="utf-8")
        + "\n\ndef planted() -> None:\n    from trainledger.reports import realize\n",
        encoding="utf-8",
    )
    result = _lint(src, tmp_path)
    assert result.returncode == 1
    assert "trainledger.core is not allowed to import trainledger.reports:" in result.stdout
    assert "- trainledger.core.money -> trainledger.reports.realize" in result.stdout


def test_the_contract_lists_the_stages_in_the_order_of_architecture_md() -> None:
    table = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    stages = re.findall(r"^\| `([a-z_]+)/` \|", table, flags=re.MULTILINE)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    assert stages[0] == "core" and stages[-1] == "cli"
    assert [f"trainledger.{s}" for s in reversed(stages)] == layers
