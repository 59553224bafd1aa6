"""A damaged warehouse or a full disk is reported as such (exit 1, one line saying what to do), not as an
unreadable bill or an internal error: a truncated copy, flipped bytes in a block, and a real full disk
(a small tmpfs in a private mount namespace, where the machine allows one)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Project
from trainledger.cli import cli

TRAINLEDGER = str(Path(sys.executable).parent / "trainledger")
REBUILD = (
    "restore it from a backup, or move it aside and run `trainledger nightly` to rebuild it from the sources"
)


@pytest.fixture
def copy(nightly_warehouse: Project, tmp_path: Path) -> Project:
    """Last night's project, in a folder of its own."""
    project = Project(tmp_path)
    project.write_config(nightly_warehouse.config.read_text(encoding="utf-8"))
    project.warehouse.parent.mkdir(mode=0o700)
    shutil.copyfile(nightly_warehouse.warehouse, project.warehouse)
    return project


def invoke(project: Project, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--config", str(project.config), *args])
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stderr.strip().splitlines()[-1]


def test_a_truncated_warehouse_is_named_as_such(copy: Project) -> None:
    data = copy.warehouse.read_bytes()
    copy.warehouse.write_bytes(data[: len(data) // 5])
    for command in (["nightly"], ["report", "--by", "project"], ["runs"]):
        code, line = invoke(copy, *command)
        assert code == 1, command
        assert re.fullmatch(
            rf"trainledger: error: {re.escape(str(copy.warehouse))}: the warehouse file is truncated or corrupt "
            rf'\(Could not read enough bytes from file "{re.escape(str(copy.warehouse))}": .*\); {re.escape(REBUILD)}',
            line,
        ), line


def test_a_corrupt_block_is_named_as_such(copy: Project) -> None:
    data = bytearray(copy.warehouse.read_bytes())
    for offset in range(12288 + 100, 12288 + 4000, 37):  # inside the first data block after the headers
        data[offset] ^= 0xFF
    copy.warehouse.write_bytes(bytes(data))
    code, line = invoke(copy, "nightly")
    assert code == 1
    assert line.startswith(
        f"trainledger: error: {copy.warehouse}: the warehouse file is truncated or corrupt ("
    )
    assert line.endswith(REBUILD)


def test_a_full_disk_is_named_as_such(copy: Project, tmp_path: Path) -> None:
    if not shutil.which("unshare") or os.geteuid() != 0:
        pytest.skip("needs root and unshare to mount a small tmpfs in a private mount namespace")
    disk = tmp_path / "small-disk"
    disk.mkdir()
    size_kb = copy.warehouse.stat().st_size // 1024 + 32  # the warehouse fits; a re-attribution does not
    script = (
        f"mount -t tmpfs -o size={size_kb}k tmpfs {disk} && cp {copy.warehouse} {disk}/ledger.duckdb && "
        f"exec {TRAINLEDGER} --config {copy.config} --warehouse {disk}/ledger.duckdb attribute"
    )
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here: {probe.stderr.decode().strip()}")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert re.fullmatch(
        rf"trainledger: error: {re.escape(str(disk))}/ledger\.duckdb(\.wal)?: no space left on the device "
        r"\(.*No space left on device\); free some space and rerun: the run was rolled back",
        line,
    ), line


@pytest.mark.parametrize(
    ("stdout", "stderr", "shown"),
    [(False, False, False), (False, True, False), (True, False, False), (True, True, True)],
)
def test_duckdb_s_progress_bar_only_at_a_terminal(
    copy: Project, monkeypatch: pytest.MonkeyPatch, stdout: bool, stderr: bool, shown: bool
) -> None:
    """DuckDB draws it on stdout: off in cron, pipes and files, on only when a person watches both streams."""
    from trainledger.core import config as config_module
    from trainledger.warehouse.connection import open_warehouse

    monkeypatch.setattr(sys.stdout, "isatty", lambda: stdout)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: stderr)
    with open_warehouse(config_module.load(copy.config), write=False) as con:
        assert con.execute("SELECT current_setting('enable_progress_bar')").fetchone() == (shown,)
