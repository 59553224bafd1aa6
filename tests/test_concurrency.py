"""One writer at a time: a second `nightly` waits its bounded time or refuses clearly; readers during a
run wait or say the warehouse is busy. Real processes, real DuckDB file locks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Project, warehouse_state
from trainledger.cli import cli

pytestmark = pytest.mark.slow

# Runs the CLI with its ingest held open until the test says so, so the run keeps its write lock (every
# run ingests; an unchanged night skips attribution).
HOLDING_DRIVER = """
import pathlib, sys, time
import trainledger.pipeline.jobs as pipeline

original = pipeline.ingest_sources
root = pathlib.Path(sys.argv[1])

def held(*args, **kwargs):
    (root / "holding").touch()
    deadline = time.monotonic() + 60
    while not (root / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return original(*args, **kwargs)

pipeline.ingest_sources = held
sys.argv = ["trainledger", *sys.argv[2:]]
from trainledger.cli import main
main()
"""


def trainledger(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", "from trainledger.cli import main; main()", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


class Writer:
    """A `nightly` in its own process that holds the warehouse until released."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDING_DRIVER, str(root), "nightly"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not (root / "holding").exists():
            assert self.process.poll() is None, self.process.communicate()
            assert time.monotonic() < deadline, "the writer never reached its ingest"
            time.sleep(0.02)

    def finish(self) -> tuple[int, str, str]:
        (self.root / "release").touch()
        out, err = self.process.communicate(timeout=120)
        return self.process.returncode, out, err


def finished(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


@pytest.fixture
def yesterday(project: Project) -> Project:
    """A project whose warehouse holds last night's run."""
    result = CliRunner().invoke(cli, ["--config", str(project.config), "nightly"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return project


def test_a_second_nightly_refuses_clearly_when_its_wait_runs_out(yesterday: Project) -> None:
    root = yesterday.root
    writer = Writer(root)
    second = trainledger(root, "--lock-timeout", "0.5", "nightly")
    code, out, err = finished(second)
    assert code == 75
    assert out == ""
    assert err == (
        f"· waiting up to 0.5s for process {writer.process.pid} to release the warehouse\n"
        f"trainledger: error: {yesterday.warehouse}: warehouse is busy: process {writer.process.pid} is writing "
        "to it; could not write it within 0.5s ([warehouse] lock_timeout_s, --lock-timeout); try again when "
        "that run ends\n"
    )
    assert writer.finish()[0] == 0
    runs = warehouse_state(yesterday.warehouse, ledger=True)["runs"]
    assert [r[4] for r in runs] == ["ok", "ok"]  # last night and the writer; the refused run left nothing


def test_a_second_nightly_waits_and_then_runs(yesterday: Project) -> None:
    root = yesterday.root
    writer = Writer(root)
    second = trainledger(root, "nightly", env={"TRAINLEDGER_LOCK_TIMEOUT": "60"})
    assert second.stderr is not None
    waiting = second.stderr.readline()
    assert waiting == f"· waiting up to 60s for process {writer.process.pid} to release the warehouse\n"
    time.sleep(0.5)
    first_code, first_out, _ = writer.finish()
    code, out, err = finished(second)
    assert (first_code, code) == (0, 0), err
    assert "ingested\taws-cur2\t2026-11\tunchanged\n" in first_out
    assert "ingested\taws-cur2\t2026-11\tunchanged\n" in out
    # 73,877.57311856 USD to the cent, as `report` shows money: the cloud bill plus the off-cloud ledger
    assert (
        "attributed\t2276 allocations\tbilled 73,877.57 USD (all sources: cloud bills and off-cloud ledgers)\n"
        in out
    )
    runs = sorted(warehouse_state(yesterday.warehouse, ledger=True)["runs"], key=lambda r: r[2])
    assert [r[4] for r in runs] == ["ok", "ok", "ok"]
    assert json.loads(runs[2][5])["lock_wait_s"] >= 0.5  # it waited for the first run to end
    assert len(warehouse_state(yesterday.warehouse)["charges"]) == 2273


@pytest.mark.parametrize("command", [["report"], ["reconcile", "exp-sft-0412"], ["runs"]])
def test_a_reader_during_a_run_says_the_warehouse_is_busy(yesterday: Project, command: list[str]) -> None:
    writer = Writer(yesterday.root)
    code, out, err = finished(trainledger(yesterday.root, *command, env={"TRAINLEDGER_LOCK_TIMEOUT": "0.3"}))
    assert writer.finish()[0] == 0
    assert (code, out) == (75, "")
    assert err == (
        f"trainledger: error: {yesterday.warehouse}: warehouse is busy: process {writer.process.pid} is writing "
        "to it; could not read it within 0.3s ([warehouse] lock_timeout_s, --lock-timeout); try again when "
        "that run ends\n"
    )


def test_a_reader_that_waits_reads_the_committed_run(yesterday: Project) -> None:
    writer = Writer(yesterday.root)
    reader = trainledger(yesterday.root, "runs", "--format", "json", env={"TRAINLEDGER_LOCK_TIMEOUT": "60"})
    time.sleep(0.5)
    assert reader.poll() is None
    assert writer.finish()[0] == 0
    code, out, err = finished(reader)
    assert code == 0, err
    assert out.count('"outcome": "ok"') == 2  # last night's run and the one it waited for, whole
