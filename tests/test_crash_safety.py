"""Crash safety: `nightly` killed (SIGKILL, a real subprocess) at several points of a run leaves the
warehouse exactly as before that run, and the next run completes normally with the right data.

The kill points are set from outside, without hooks in trainledger: a small driver replaces one step of
the run with "do the step, then SIGKILL myself" (or "SIGKILL myself first") and runs the CLI.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import generate
from conftest import demo_config, warehouse_state
from trainledger.cli import cli

pytestmark = pytest.mark.slow

DRIVER = """
import importlib, os, signal, sys, threading
from contextlib import contextmanager

target, when = sys.argv[1], sys.argv[2]
module_name, _, name = target.rpartition(".")
module = importlib.import_module(module_name)
original = getattr(module, name)

def die():
    os.kill(os.getpid(), signal.SIGKILL)

if when == "racing-commit":  # the kill races DuckDB's COMMIT, landing before, during or after it
    @contextmanager
    def patched(con):
        with original(con):
            yield con
            threading.Timer(0.0005, die).start()
else:
    def patched(*args, **kwargs):
        if when == "before":
            die()
        result = original(*args, **kwargs)
        die()
        return result

setattr(module, name, patched)
sys.argv = ["trainledger", *sys.argv[3:]]
from trainledger.cli import main
main()
"""

CUR_DIR = "aws/cur/ml-cur2"
CUR_FILE = f"{CUR_DIR}/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet"
MANIFEST = f"{CUR_DIR}/metadata/BILLING_PERIOD=2026-11/ml-cur2-Manifest.json"
WAREHOUSE = ".trainledger/ledger.duckdb"
EXPORT = "exports/trainledger-2026-11.csv"


def nightly_in_process(root: Path) -> None:
    result = CliRunner().invoke(
        cli, ["--config", str(root / "trainledger.toml"), "nightly"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr


def killed_nightly(root: Path, target: str, when: str) -> subprocess.CompletedProcess[str]:
    """Run `trainledger nightly` in a subprocess that SIGKILLs itself at the given step."""
    return subprocess.run(
        [sys.executable, "-c", DRIVER, target, when, "--config", str(root / "trainledger.toml"), "nightly"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def data_state(root: Path) -> dict[str, list[tuple[object, ...]]]:
    """The warehouse without the run ledger and ingest times, which differ from run to run, and without
    the record of which export files are current, which follows the files (written after the commit)."""
    state = warehouse_state(root / WAREHOUSE)
    state["ingest_state"] = [row[:-1] for row in state["ingest_state"]]
    state["step_inputs"] = [row for row in state["step_inputs"] if not str(row[0]).startswith("export:")]
    return state


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Last night's warehouse (built from the first delivery of the month), tonight's inputs (AWS restated
    the month, a job updated the log), and what a clean run on tonight's inputs gives."""
    base = tmp_path_factory.mktemp("crash")
    generate.main(["--out", str(base / "yesterday-inputs")])
    last_night = base / "last-night"
    last_night.mkdir()
    (last_night / "trainledger.toml").write_text(demo_config(base / "yesterday-inputs"), encoding="utf-8")
    nightly_in_process(last_night)

    tonight = base / "tonight-inputs"
    shutil.copytree(base / "yesterday-inputs", tonight)
    pq.write_table(generate.rows_to_table(generate.cur2_rows(seed=8)), tonight / CUR_FILE, store_schema=False)
    manifest = json.loads((tonight / MANIFEST).read_text(encoding="utf-8"))
    manifest["executionId"] = "5e1f0000-0000-4000-8000-000000000008"
    (tonight / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    log = tonight / "experiments.jsonl"
    log.write_text(
        log.read_text(encoding="utf-8").replace('"status": "failed"', '"status": "aborted"'), "utf-8"
    )

    clean = base / "clean"
    clean.mkdir()
    (clean / "trainledger.toml").write_text(demo_config(tonight), encoding="utf-8")
    nightly_in_process(clean)
    return {
        "last_night": last_night,
        "tonight": tonight,
        "expected_state": data_state(clean),
        "expected_export": (clean / EXPORT).read_bytes(),
    }


def tonight_project(scene: dict[str, object], tmp_path: Path, with_history: bool = True) -> Path:
    if with_history:
        shutil.copytree(scene["last_night"], tmp_path, dirs_exist_ok=True)  # type: ignore[arg-type]
    (tmp_path / "trainledger.toml").write_text(demo_config(scene["tonight"]), encoding="utf-8")  # type: ignore[arg-type]
    return tmp_path


def assert_next_run_is_correct(root: Path, scene: dict[str, object], runs_before: int) -> None:
    nightly_in_process(root)
    assert data_state(root) == scene["expected_state"]
    assert (root / EXPORT).read_bytes() == scene["expected_export"]
    assert not list((root / "exports").glob(".*.tmp"))
    outcomes = [r[4] for r in warehouse_state(root / WAREHOUSE, ledger=True)["runs"]]
    assert len(outcomes) == runs_before + 1 and "ok" in outcomes


KILL_POINTS = [
    (
        "trainledger.connectors.bill_loader.replace_period",
        "after",
    ),  # the month's charges swapped, uncommitted
    ("trainledger.pipeline.experiments_loader.load", "after"),  # the experiment log reloaded
    ("trainledger.attribution.allocations.attribute", "before"),
    ("trainledger.attribution.allocations.attribute", "after"),  # allocations recomputed
    (
        "trainledger.warehouse.run_ledger.write",
        "after",
    ),  # the run's own ledger row written, just before COMMIT
]


@pytest.mark.parametrize(
    ("target", "when"), KILL_POINTS, ids=[f"{when}-{t.rsplit('.', 1)[1]}" for t, when in KILL_POINTS]
)
def test_a_run_killed_before_its_commit_leaves_no_trace(
    scene: dict[str, object], tmp_path: Path, target: str, when: str
) -> None:
    root = tonight_project(scene, tmp_path)
    before = warehouse_state(root / WAREHOUSE, ledger=True)
    export_before = (root / EXPORT).read_bytes()

    killed = killed_nightly(root, target, when)

    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert warehouse_state(root / WAREHOUSE, ledger=True) == before  # not even a ledger row
    assert (root / EXPORT).read_bytes() == export_before
    wal = root / (WAREHOUSE + ".wal")
    assert not wal.exists() or (wal.stat().st_mode & 0o777) == 0o600
    assert_next_run_is_correct(root, scene, runs_before=len(before["runs"]))


def test_a_kill_racing_the_commit_leaves_before_or_after(scene: dict[str, object], tmp_path: Path) -> None:
    root = tonight_project(scene, tmp_path)
    before = data_state(root)
    killed = killed_nightly(root, "trainledger.pipeline.jobs.transaction", "racing-commit")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert data_state(root) in (before, scene["expected_state"])
    assert_next_run_is_correct(
        root, scene, runs_before=len(warehouse_state(root / WAREHOUSE, ledger=True)["runs"])
    )


def test_a_kill_while_writing_the_export_leaves_the_old_export_whole(
    scene: dict[str, object], tmp_path: Path
) -> None:
    root = tonight_project(scene, tmp_path)
    export_before = (root / EXPORT).read_bytes()
    runs_before = len(warehouse_state(root / WAREHOUSE, ledger=True)["runs"])

    killed = killed_nightly(root, "os.replace", "before")  # the new export is written, not yet renamed

    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert (root / EXPORT).read_bytes() == export_before  # a reader never sees half an export
    assert [p.name.startswith(".trainledger-2026-11.csv.") for p in (root / "exports").glob(".*.tmp")] == [
        True
    ]
    # The data had committed: the ledger says so, and that exports and alerts did not finish.
    assert data_state(root) == scene["expected_state"]
    newest = max(warehouse_state(root / WAREHOUSE, ledger=True)["runs"], key=lambda r: r[2])
    assert newest[4] == "incomplete"
    assert_next_run_is_correct(root, scene, runs_before=runs_before + 1)


def test_a_first_run_killed_leaves_an_empty_warehouse(scene: dict[str, object], tmp_path: Path) -> None:
    root = tonight_project(scene, tmp_path, with_history=False)
    killed = killed_nightly(root, "trainledger.attribution.allocations.attribute", "after")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    state = warehouse_state(root / WAREHOUSE, ledger=True)
    # The schema, stamped with its version on opening, is all the kill leaves.
    assert [k for k, _ in state.pop("trainledger_meta")] == ["layout", "schema_version"]
    assert all(rows == [] for rows in state.values())
    # Owner-only, and so is the write-ahead log the kill left (it holds the schema DuckDB wrote).
    assert (root / WAREHOUSE).stat().st_mode & 0o777 == 0o600
    assert (root / (WAREHOUSE + ".wal")).stat().st_mode & 0o777 == 0o600
    assert not (root / "exports").exists()
    assert_next_run_is_correct(root, scene, runs_before=0)


def test_the_driver_really_runs_nightly(scene: dict[str, object], tmp_path: Path) -> None:
    """The kill points above mean something only if the driver runs the real CLI: unpatched, it completes."""
    root = tonight_project(scene, tmp_path)
    unpatched = DRIVER.replace("setattr(module, name, patched)", "")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            unpatched,
            "os.getpid",
            "after",
            "--config",
            str(root / "trainledger.toml"),
            "nightly",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert data_state(root) == scene["expected_state"]
