"""The Python API (`trainledger.open`): every frame equals the matching command's `--format json`, cell by
cell with exact decimals; money is Decimal(38, 12); errors are trainledger's exceptions; the warehouse is
read without ever waiting for, or blocking, a batch run that writes it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from click.testing import CliRunner

import trainledger
from conftest import ROOT, Project
from test_demo_end_to_end import fixture_billed_total
from trainledger.cli import cli
from trainledger.core.errors import NotFound, TrainledgerError
from trainledger.outputs.ledger import Ledger

MONEY = pl.Decimal(38, 12)


def cli_json(project: Project, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["--config", str(project.config), *args, "--format", "json"])
    assert result.exit_code in (0, 2), result.stderr
    return json.loads(result.stdout)


def same(cell: Any, shown: Any) -> bool:
    """A frame's cell against the JSON's value: decimals exactly, times as ISO 8601 UTC."""
    if shown is None or cell is None:
        return cell is None and shown is None
    if isinstance(cell, Decimal):
        return cell == Decimal(shown)
    if isinstance(cell, datetime):
        return cell.strftime("%Y-%m-%dT%H:%M:%SZ") == shown
    return bool(cell == shown)


def assert_rows_equal(found: pl.DataFrame, shown: list[dict[str, Any]]) -> None:
    assert found.height == len(shown)
    for row, expected in zip(found.iter_rows(named=True), shown, strict=True):
        for key, value in expected.items():
            assert same(row[key], value), (key, row[key], value)


@pytest.fixture(scope="module")
def ledger(nightly_warehouse: Project) -> Iterator[Ledger]:
    with trainledger.open(nightly_warehouse.config) as opened:
        yield opened


@pytest.mark.parametrize(
    ("kwargs", "args"),
    [
        ({}, []),
        ({"by": ["project", "phase"]}, ["--by", "project,phase"]),
        ({"by": "waste,project", "period": "2026-11"}, ["--by", "waste,project", "--period", "2026-11"]),
        (
            {"by": ["experiment"], "granularity": "day", "since": "2026-11-10", "until": date(2026, 11, 20)},
            ["--by", "experiment", "--granularity", "day", "--since", "2026-11-10", "--until", "2026-11-20"],
        ),
    ],
)
def test_costs_are_report_json(ledger, nightly_warehouse: Project, kwargs, args) -> None:
    found = ledger.costs(**kwargs)
    shown = cli_json(nightly_warehouse, "report", *args)
    assert found.columns == list(shown[0])
    assert all(found.schema[c] == MONEY for c in ("billed_cost", "effective_cost", "list_cost"))
    assert_rows_equal(found, shown)


def test_waste_is_report_by_waste(ledger, nightly_warehouse: Project) -> None:
    assert_rows_equal(
        ledger.waste(by=["project"]), cli_json(nightly_warehouse, "report", "--by", "waste,project")
    )
    failed = ledger.waste().filter(pl.col("waste") == "failed")
    # exp-rl-0421 failed: all it cost is waste (the demo's README: 497.36 on its H100 node).
    assert failed["effective_cost"].to_list() == [Decimal("497.359999980000")]


def test_experiments_are_the_experiments_json(ledger, nightly_warehouse: Project) -> None:
    assert_rows_equal(ledger.experiments(), cli_json(nightly_warehouse, "experiments"))
    mine = ledger.experiments(project="qwen-coder", since="2026-11-01")
    assert_rows_equal(
        mine, cli_json(nightly_warehouse, "experiments", "--project", "qwen-coder", "--since", "2026-11-01")
    )
    assert mine.schema["variance"] == MONEY


def test_reconcile_is_the_reconcile_json_for_every_experiment(ledger, nightly_warehouse: Project) -> None:
    ids = [e["experiment_id"] for e in cli_json(nightly_warehouse, "experiments")]
    many = ledger.reconcile_many(ids)
    for exp_id in ids:
        shown = cli_json(nightly_warehouse, "reconcile", exp_id)
        found = ledger.reconcile(exp_id)
        assert found.rows.columns == list(shown["rows"][0])
        assert_rows_equal(found.rows, shown["rows"])
        assert_rows_equal(many.rows.filter(pl.col("experiment_id") == exp_id), shown["rows"])
        header = {
            k: shown[k] for k in ("experiment_id", "currency", "billing_complete_through", "provisional")
        }
        assert_rows_equal(found.experiments, [{**header, **shown["totals"], **shown["waste"]}])
        assert json.loads(json.dumps(found.assumptions[exp_id])) == shown["assumptions"]


def test_reconcile_of_the_sft_run_by_hand(ledger) -> None:
    found = ledger.reconcile("exp-sft-0412")
    train = found.rows.filter((pl.col("phase") == "train") & (pl.col("category") == "compute")).row(
        0, named=True
    )
    # 1,210.88 billed for the train node against 950.00 estimated: 260.88 over, 260.88 / 950 = 27.4610...%.
    assert (train["estimated"], train["realized"]) == (Decimal("950"), Decimal("1210.88"))
    assert (train["variance"], train["variance_pct"]) == (Decimal("260.88"), Decimal("27.46"))
    assert found.rows.schema["realized"] == MONEY and found.experiments["over"].to_list() == [True]
    assert isinstance(found.to_arrow(), pa.Table)
    assert found.to_arrow().schema.field("realized").type == pa.decimal128(38, 12)


def test_allocations_are_lazy_and_add_up_to_the_bill(ledger, demo_files: Path) -> None:
    month = ledger.allocations("2026-11")
    assert isinstance(month, pl.LazyFrame)
    aws = month.filter(pl.col("provider") == "aws").select(pl.col("billed_cost").sum()).collect()
    # The bill's own total, from the parquet by pyarrow (tests/test_demo_end_to_end.py).
    assert aws.item() == fixture_billed_total(demo_files)
    assert month.collect_schema()["effective_cost"] == MONEY
    assert month.head(3).collect().height == 3


def test_estimate_is_the_estimate_json(ledger, nightly_warehouse: Project) -> None:
    plan = json.loads((ROOT / "fixtures" / "plan.json").read_text(encoding="utf-8"))
    (nightly_warehouse.root / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    shown = cli_json(nightly_warehouse, "estimate", "--params", str(nightly_warehouse.root / "plan.json"))
    found = ledger.estimate(params=plan.get("params", plan), method=plan.get("method"))
    assert_rows_equal(found.phases, shown["phases"])
    assert_rows_equal(found.components, shown["components"])
    assert same(found.total, shown["total"]) and found.phases.schema["cost"] == MONEY
    assert {k: v for k, v in shown.items() if k in found.detail} == found.detail
    assert isinstance(found.to_arrow(), pa.Table)
    logged = ledger.estimate(experiment_id="exp-rl-0421")
    assert_rows_equal(logged.phases, cli_json(nightly_warehouse, "estimate", "exp-rl-0421")["phases"])


def test_errors_are_trainledgers_own(ledger, tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="experiment 'exp-nowhere' is not in the experiment log"):
        ledger.reconcile("exp-nowhere")
    with pytest.raises(TrainledgerError, match="unknown dimension 'colour'"):
        ledger.costs(by=["colour"])
    with pytest.raises(TrainledgerError, match="period: expected YYYY-MM, got '2026-13'"):
        ledger.allocations("2026-13")
    with pytest.raises(NotFound, match="no allocations for billing period 2025-01"):
        ledger.allocations("2025-01")
    with pytest.raises(TrainledgerError, match="granularity 'week' is not one of hour, day, month"):
        ledger.costs(granularity="week")
    with pytest.raises(NotFound, match="no warehouse yet"):
        trainledger.open(warehouse=tmp_path / "none.duckdb").costs()


WRITER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("DELETE FROM allocation_rows WHERE experiment_id = 'exp-opd-0425'")  # committed: in the WAL
for table in ("allocation_refs", "allocation_cells"):
    con.execute(f"DELETE FROM {table} WHERE tuple_id IN "
                "(SELECT tuple_id FROM allocation_tuples WHERE experiment_id = 'exp-opd-0425')")
con.begin()
con.execute("DELETE FROM allocation_rows")  # not committed while the reader reads
con.execute("DELETE FROM allocation_refs")
con.execute("DELETE FROM allocation_cells")
print("writing", flush=True)
sys.stdin.readline()
con.commit()
print("committed", flush=True)
"""


@pytest.mark.slow
def test_reading_while_a_batch_run_writes_sees_the_last_commit_and_never_blocks_it(
    project: Project, run
) -> None:
    assert run("nightly").exit_code == 0
    with trainledger.open(project.config) as ledger:
        before = ledger.costs(by="experiment")
        # The writer opens the file read-write right after a read: the ledger holds nothing between calls.
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(project.warehouse)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None and writer.stdin is not None
        assert writer.stdout.readline() == "writing\n"  # it holds the write lock, mid-transaction
        started = time.monotonic()
        during = ledger.costs(by="experiment")
        assert time.monotonic() - started < ledger.config.warehouse.lock_timeout_s  # read, not waited
        # The committed delete is seen, the one in flight is not.
        assert during.equals(before.filter(pl.col("experiment_id").ne_missing("exp-opd-0425")))
        writer.stdin.write("\n")
        writer.stdin.flush()
        assert writer.stdout.readline() == "committed\n"  # the reader held nothing between calls
        assert writer.wait(timeout=30) == 0
        assert ledger.costs(by="experiment").filter(pl.col("experiment_id").is_not_null()).is_empty()


def test_readme_from_python_examples_run(nightly_warehouse: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## From Python", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```python\n")[1:]]
    assert blocks
    monkeypatch.chdir(nightly_warehouse.root)  # its trainledger.toml, as a notebook beside it finds it
    scope: dict[str, Any] = {}
    for block in blocks:
        exec(compile(textwrap.dedent(block), "README.md", "exec"), scope)


def test_open_takes_the_config_as_the_cli_finds_it(
    nightly_warehouse: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TrainledgerError, match="no config file"):
        trainledger.open()
    monkeypatch.setenv("TRAINLEDGER_CONFIG", str(nightly_warehouse.config))
    assert trainledger.open().config.warehouse_path() == nightly_warehouse.warehouse
    monkeypatch.delenv("TRAINLEDGER_CONFIG")
    elsewhere = trainledger.open(warehouse=nightly_warehouse.warehouse)  # no config: the defaults
    assert elsewhere.experiments().height == 4
