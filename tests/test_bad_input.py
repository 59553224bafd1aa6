"""Bad input: one line naming the file, row/column and what was expected; exit 1; warehouse unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import Project, demo_config, warehouse_fingerprint

CUR_FILE = "aws/cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet"


@pytest.fixture
def own_files(project: Project, demo_files: Path) -> Path:
    """A private copy of the demo files this test may break."""
    root = project.root / "inputs"
    shutil.copytree(demo_files, root)
    project.write_config(demo_config(root))
    return root


def break_parquet(path: Path, column: str, row: int, value: object) -> None:
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    values[row] = value
    index = table.schema.get_field_index(column)
    table = table.set_column(
        index, table.schema.field(index), pa.array(values, type=table.schema.field(index).type)
    )
    pq.write_table(table, path)


def test_nan_cost_names_file_row_and_column(run, project: Project, own_files: Path) -> None:
    assert run("nightly").exit_code in (0, 2)  # 2: the demo budget is crossed
    before = warehouse_fingerprint(project.warehouse)
    break_parquet(own_files / CUR_FILE, "line_item_unblended_cost", 41, float("nan"))
    (own_files / CUR_FILE).touch()
    result = run("nightly")
    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()[-1]
    assert error == (
        f"trainledger: error: {own_files / CUR_FILE}, row 42, column line_item_unblended_cost: "
        "expected a finite number, got 'nan'"
    )
    assert warehouse_fingerprint(project.warehouse) == before


def test_missing_cur_column_is_named(run, own_files: Path) -> None:
    path = own_files / CUR_FILE
    pq.write_table(pq.read_table(path).drop(["line_item_currency_code"]), path)
    result = run("nightly")
    assert result.exit_code == 1
    assert result.stderr.strip().endswith(
        f"{path}: not a CUR 2.0 file: missing column(s) line_item_currency_code"
    )


def test_row_outside_its_billing_period(run, own_files: Path) -> None:
    import datetime as dt

    path = own_files / CUR_FILE
    break_parquet(path, "bill_billing_period_start_date", 3, dt.datetime(2026, 10, 1, tzinfo=dt.UTC))
    result = run("nightly")
    assert result.exit_code == 1
    assert "row 4, column bill_billing_period_start_date: expected a timestamp in billing period 2026-11" in (
        result.stderr
    )


def test_bad_json_in_the_experiment_log(run, project: Project, own_files: Path) -> None:
    log = own_files / "experiments.jsonl"
    log.write_text(log.read_text(encoding="utf-8") + '{"experiment_id": "exp-9", \n', encoding="utf-8")
    lines = len(log.read_text(encoding="utf-8").splitlines())
    result = run("nightly")
    assert result.exit_code == 1
    assert f"{log}:{lines}: not valid JSON" in result.stderr
    assert not project.warehouse.exists() or "Traceback" not in result.stderr


def test_timestamp_without_zone_in_the_log_is_refused(run, own_files: Path) -> None:
    log = own_files / "experiments.jsonl"
    log.write_text('{"experiment_id": "exp-9", "started_at": "2026-11-03 08:00:00"}\n', encoding="utf-8")
    result = run("nightly")
    assert result.exit_code == 1
    assert "field started_at: timestamp '2026-11-03 08:00:00' has no time zone" in result.stderr


def test_unknown_experiment_is_a_user_error(run) -> None:
    run("nightly")
    result = run("reconcile", "exp-nope")
    assert result.exit_code == 1
    assert (
        result.stderr
        == "trainledger: error: experiment 'exp-nope' is not in the experiment log nor in any allocation; "
        "closest known: exp-opd-0425, exp-rl-0421, exp-rl-0419\n"
    )


def test_reading_before_any_run_says_what_to_do(run, project: Project) -> None:
    result = run("report")
    assert result.exit_code == 1
    assert "no warehouse yet - run `trainledger nightly`" in result.stderr


def test_a_usage_error_is_a_user_error_not_a_budget_alert(run) -> None:
    # exit 2 tells a scheduler a budget was crossed, so a mistyped command must not exit 2
    result = run("export", "--out", "x.csv")
    assert result.exit_code == 1
    assert "Missing option '--period'" in result.stderr
    assert run("nosuch").exit_code == 1


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ("export", "--out", "x.csv"),
            "trainledger: error: Missing option '--period'; see `trainledger export --help`",
        ),
        (
            ("export", "--period", "2026-13", "--out", "x.csv"),
            "trainledger: error: Invalid value for '--period': expected YYYY-MM, got '2026-13'; "
            "see `trainledger export --help`",
        ),
        (
            ("report", "--format", "xml"),
            "trainledger: error: Invalid value for '--format': 'xml' is not one of 'table', 'csv', 'json'; "
            "see `trainledger report --help`",
        ),
        (("nosuch",), "trainledger: error: No such command 'nosuch'; see `trainledger --help`"),
        (
            ("report", "--format", "http://admin:SuperSecret1@host"),  # SPEC §8: no credentials in outputs
            "trainledger: error: Invalid value for '--format': 'http://***@host' is not one of 'table', "
            "'csv', 'json'; see `trainledger report --help`",
        ),
    ],
)
def test_a_mistyped_command_is_one_line(run, args: tuple[str, ...], line: str) -> None:
    """SPEC §7: "1 user error (bad config, bad input: one clear line saying what and where, no
    traceback)" -- a bad option is bad input too: one line on stderr, nothing on stdout."""
    result = run(*args)
    assert result.exit_code == 1
    assert result.stderr == line + "\n"
    assert result.stdout == ""


@pytest.mark.parametrize(
    "earlier_table",
    [
        "CREATE TABLE charges (charge_id VARCHAR NOT NULL, source VARCHAR NOT NULL)",  # md5 text ids
        "CREATE TABLE allocations (charge_id BIGINT NOT NULL, share_no INTEGER NOT NULL)",  # not yet a view
    ],
)
def test_a_warehouse_from_a_development_build_is_refused_not_patched(
    run, project: Project, earlier_table: str
) -> None:
    """Unreleased builds laid the warehouse out differently; such a warehouse is rebuilt from the sources."""
    import duckdb

    project.warehouse.parent.mkdir(parents=True)
    con = duckdb.connect(str(project.warehouse))
    con.execute(earlier_table)
    con.close()
    result = run("nightly")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        f"trainledger: error: {project.warehouse}: written by an older trainledger (schema 1, this version "
        "reads 5): move it aside and run `trainledger nightly` to rebuild it from the sources"
    ]


def test_a_parquet_file_cut_short_is_named_once_with_what_was_expected(run, own_files: Path) -> None:
    path = own_files / CUR_FILE
    path.write_bytes(path.read_bytes()[:4000])
    result = run("nightly")
    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith(f"trainledger: error: {path}: cannot read: ")
    assert error.endswith("; expected a complete parquet file")
    assert error.count(str(path)) == 1 and "file the file" not in error
