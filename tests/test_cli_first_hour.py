"""The installed CLI as a newcomer and a cron job meet it: no config is an error, a closed reader loses no
work, global options after the command, `init` to a first report, examples in every --help and in the
README that run as written."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import click
import pytest

from conftest import REFERENCE, ROOT, Project, demo_config, needs_reference
from trainledger.cli import cli

BIN = ROOT / ".venv" / "bin" / "trainledger"
FOCUS_SAMPLE = REFERENCE / "focus-sample" / "FOCUS-1.0" / "focus_sample.csv"


def installed(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    if not BIN.exists():
        pytest.skip(f"{BIN} not installed (run `make install`)")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRAINLEDGER_")}
    return subprocess.run(
        [str(BIN), *args], cwd=cwd, capture_output=True, text=True, env={**clean, **(env or {})}, timeout=300
    )


NEEDS_CONFIG = [
    ("nightly",),
    ("ingest",),
    ("attribute",),
    ("report",),
    ("reconcile", "exp-sft-0412"),
    ("estimate", "exp-sft-0412"),
    ("export", "--period", "2026-11", "--out", "x.csv"),
    ("labels",),
    ("budgets",),
    ("experiments",),
    ("runs",),
]


@pytest.mark.parametrize("args", NEEDS_CONFIG, ids=[a[0] for a in NEEDS_CONFIG])
def test_no_config_is_an_error_naming_the_file_and_init(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = installed(tmp_path, *args)
    assert result.returncode == 1
    assert result.stderr == (
        f"trainledger: error: no config file: looked for {tmp_path / 'trainledger.toml'} (in the current "
        "folder); run `trainledger init` to write one\n"
    )
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []  # no .trainledger/ made in the wrong folder


def test_an_estimate_from_a_params_file_needs_no_config(tmp_path: Path) -> None:
    """Planning before any set-up: `estimate --params` prices a plan with the default assumptions."""
    plan = {"method": "sft", "params": {"model_params_b": 1, "gpu_type": "H100", "gpus": 8}}
    plan["params"] |= {"train_samples": 1000, "avg_tokens_per_sample": 1800}
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    result = installed(tmp_path, "estimate", "--params", "plan.json", "--format", "json")
    assert result.returncode == 0, result.stderr
    # 6 x 1e9 x 1.8e6 tokens = 1.08e16 FLOPs of training.
    train = [p for p in json.loads(result.stdout)["phases"] if p["phase"] == "train"]
    assert train[0]["flops"] == 108 * 10**14
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]  # nothing made beside it


def test_report_on_a_missing_warehouse_says_so(project: Project) -> None:
    result = installed(project.root, "report")
    assert result.returncode == 1
    assert result.stderr == (
        f"trainledger: error: {project.warehouse}: no warehouse yet - run `trainledger nightly` "
        "(or `ingest` and `attribute`)\n"
    )


def _runs(root: Path) -> list[dict[str, object]]:
    result = installed(root, "runs", "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("command", ["ingest", "attribute", "nightly"])
def test_a_reader_closing_at_once_loses_no_work(project: Project, command: str) -> None:
    """`trainledger nightly 2>&1 | head -0`: stdout and stderr are one pipe whose reader has gone."""
    if command == "attribute":
        assert installed(project.root, "ingest").returncode == 0
    process = subprocess.Popen(
        [str(BIN), command], cwd=project.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert process.stdout is not None
    process.stdout.close()  # the reader goes away before a single line is written
    assert process.wait(timeout=300) == 0  # the run's own status (the demo's budget is not configured)
    latest = _runs(project.root)[0]
    assert (latest["command"], latest["outcome"]) == (command, "ok")
    if command != "ingest":
        summary = installed(project.root, "report", "--by", "project", "--format", "json")
        total = sum(Decimal(r["billed_cost"]) for r in json.loads(summary.stdout))
        assert total == Decimal("73877.57311856")  # the demo's CUR month plus its off-cloud ledger


@pytest.mark.parametrize("closed", [">&-", "2>&-", ">&- 2>&-"])
def test_a_stream_closed_from_the_start_loses_no_work(
    project: Project, demo_files: Path, closed: str
) -> None:
    """SPEC §7: "A batch command's outcome never depends on who reads its output: a closed stdout loses no
    work", and "2 budget threshold crossed (for `nightly` and `budgets`)". A cron line that closes the
    streams (`trainledger nightly >&-`) still runs, commits, and exits 2 for the demo's crossed budget."""
    if not BIN.exists():
        pytest.skip(f"{BIN} not installed (run `make install`)")
    project.write_config(demo_config(demo_files, budget=True))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRAINLEDGER_")}
    night = subprocess.run(
        ["sh", "-c", f'"$0" nightly {closed}', str(BIN)], cwd=project.root, env=clean, timeout=300
    )
    assert night.returncode == 2
    assert (project.root / "exports" / "trainledger-2026-11.csv").exists()
    latest = _runs(project.root)[0]
    assert (latest["command"], latest["outcome"]) == ("nightly", "ok")
    summary = installed(project.root, "report", "--by", "project", "--format", "json")
    total = sum(Decimal(r["billed_cost"]) for r in json.loads(summary.stdout))
    assert total == Decimal("73877.57311856")  # the demo's CUR month plus its off-cloud ledger


def test_global_options_work_after_the_command(project: Project, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    warehouse = tmp_path / "other.duckdb"
    options = ("--config", str(project.config), "--warehouse", str(warehouse))
    result = installed(elsewhere, "nightly", *options)
    assert result.returncode == 0, result.stderr
    assert warehouse.exists() and not project.warehouse.exists()
    again = installed(elsewhere, "nightly", "--verbose", *options)
    assert "\n  experiment log unchanged: 4 experiment(s)\n" in again.stderr  # a --verbose detail
    assert "experiment log unchanged" not in result.stderr
    report = installed(
        elsewhere,
        "report",
        "--by",
        "project",
        "--config",
        str(project.config),
        "--warehouse",
        str(warehouse),
        "--lock-timeout",
        "0",
        "--debug",
    )
    assert report.returncode == 0, report.stderr
    assert "qwen-coder" in report.stdout


def test_init_with_the_official_focus_sample_then_nightly_then_report(tmp_path: Path) -> None:
    needs_reference(FOCUS_SAMPLE)
    init = installed(tmp_path, "init", "--source", "focus", "--uri", str(FOCUS_SAMPLE))
    assert init.returncode == 0, init.stderr
    night = installed(tmp_path, "nightly")
    assert night.returncode == 0, night.stderr
    assert night.stderr.count("does not exist yet: no experiments") == 1  # said once
    assert sorted(p.name for p in (tmp_path / "exports").iterdir()) == [
        "alerts.json",
        "trainledger-2024-09.csv",
        "trainledger-2024-10.csv",
    ]
    report = installed(tmp_path, "report", "--by", "provider", "--format", "json")
    assert report.returncode == 0, report.stderr
    # BilledCost by provider, summed here from the file itself (its nulls are written "NULL"); the
    # file's ProviderName as the provider table's ids, mapped by hand.
    ids = {"AWS": "aws", "Microsoft": "azure", "Oracle": "oci"}
    expected: dict[str, Decimal] = {}
    with FOCUS_SAMPLE.open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            provider = ids[row["ProviderName"]]
            expected[provider] = expected.get(provider, Decimal(0)) + Decimal(row["BilledCost"])
    got = {r["provider"]: Decimal(r["billed_cost"]) for r in json.loads(report.stdout)}
    assert got == expected


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        found.append((*prefix, name))
        if isinstance(command, click.Group):
            found.extend(_commands(command, (*prefix, name)))
    return found


@pytest.mark.parametrize("path", _commands(cli), ids=" ".join)
def test_every_help_ends_with_real_examples(path: tuple[str, ...], run) -> None:
    result = run(*path, "--help")
    assert result.exit_code == 0
    tail = result.stdout.rstrip("\n").split("Examples:\n", 1)
    assert len(tail) == 2, f"`trainledger {' '.join(path)} --help` has no examples"
    lines = tail[1].splitlines()
    assert 2 <= len(lines) <= 3
    assert all(line.strip().startswith(f"trainledger {path[0]}") for line in lines), lines


def _readme_use_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    use = text.split("## Use\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", use, re.S)
    return [
        line.split("  #", 1)[0].strip() for block in blocks for line in block.splitlines() if line.strip()
    ]


def test_readme_use_examples_run_as_written_on_the_demo(tmp_path: Path, demo_files: Path) -> None:
    lines = _readme_use_lines()
    assert len(lines) >= 20
    demo = tmp_path / "demo"
    shutil.copytree(demo_files, demo)
    (demo / "trainledger.toml").write_text(demo_config(demo, budget=True), encoding="utf-8")
    shutil.copy(ROOT / "fixtures" / "plan.json", demo / "plan.json")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    state = {"TRAINLEDGER_RUN_STATE": str(tmp_path / "run-state.json")}
    for line in lines:
        args = shlex.split(line)
        assert args[0] == "trainledger"
        where = fresh if args[1] == "init" else demo
        result = installed(where, *args[1:], env=state)
        # 2: a crossed budget (the demo's math-reasoner budget is), as the README's comments say
        allowed = (0, 2) if args[1] in ("nightly", "budgets") else (0,)
        assert result.returncode in allowed, f"{line}: {result.stderr}"
