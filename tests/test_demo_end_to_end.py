"""The demo month end to end: ingest, attribute, export, reconcile, with money written out."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from conftest import Project

# Independently computed from the generated parquet (sum of each unblended double's decimal text).
FIXTURE_BILLED_TOTAL = Decimal("67353.05311856")


def fixture_billed_total(demo_files: Path) -> Decimal:
    total = Decimal(0)
    for path in sorted((demo_files / "aws/cur/ml-cur2/data").rglob("*.parquet")):
        for value in pq.read_table(path, columns=["line_item_unblended_cost"]).column(0).to_pylist():
            total += Decimal(repr(value))
    return total


def test_fixture_total_is_what_the_generator_says(demo_files: Path) -> None:
    assert fixture_billed_total(demo_files) == FIXTURE_BILLED_TOTAL


def test_export_sums_to_the_bill_exactly(run, project: Project, demo_files: Path) -> None:
    assert run("nightly").exit_code == 0
    result = run("export", "--period", "2026-11", "--out", "nov.csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader((project.root / "nov.csv").open(encoding="utf-8")))
    cloud = [r for r in rows if r["provider"] == "aws"]
    assert sum(Decimal(r["billed_cost"]) for r in cloud) == fixture_billed_total(demo_files)
    assert list(rows[0]) == [
        "billing_period",
        "provider",
        "billing_account_id",
        "sub_account_id",
        "project",
        "phase",
        "method",
        "experiment_id",
        "cost_category",
        "service_name",
        "rule",
        "currency",
        "billed_cost",
        "effective_cost",
        "list_cost",
    ]


def test_every_charge_is_split_exactly(nightly_warehouse: Project) -> None:
    con = duckdb.connect(str(nightly_warehouse.warehouse), read_only=True)
    broken = con.execute(
        """
        SELECT c.charge_id FROM charges c
        LEFT JOIN (SELECT charge_id, sum(billed_cost) b, sum(effective_cost) e FROM allocations GROUP BY 1) a
          USING (charge_id)
        WHERE a.b IS DISTINCT FROM c.billed_cost OR a.e IS DISTINCT FROM c.effective_cost
        """
    ).fetchall()
    assert broken == []
    assert con.execute("SELECT count(*) FROM charges WHERE provider = 'aws'").fetchone() == (2269,)


def test_reconcile_json_has_the_spec_shape_and_the_money(run, project: Project) -> None:
    run("nightly")
    result = run("reconcile", "exp-sft-0412", "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {
        "experiment_id",
        "currency",
        "billing_complete_through",
        "provisional",
        "rows",
        "totals",
        "waste",
        "reservations",  # beyond SPEC §7: reserved capacity the run used (README "Reserved GPU capacity")
        "assumptions",
    }
    assert report["experiment_id"] == "exp-sft-0412"
    assert report["currency"] == "USD"
    assert report["provisional"] is False
    train = next(r for r in report["rows"] if (r["phase"], r["category"]) == ("train", "compute"))
    assert train["estimated"] == "950.00"
    # 22 hours of p5.48xlarge at $55.04 tagged with the experiment (06:00 to 04:00 next day).
    assert train["realized"] == "1210.88"
    assert train["variance"] == "260.88"
    assert train["variance_pct"] == "27.46"


def test_reconcile_table_is_readable(run) -> None:
    run("nightly")
    result = run("reconcile", "exp-sft-0412")
    assert result.exit_code == 0
    assert "Experiment exp-sft-0412" in result.stdout
    # Columns are as wide as their longest cell (the summary rows' "lines with no estimate").
    assert re.search(r"^train +compute +950\.00 +1,210\.88 +260\.88 +\+27\.5%$", result.stdout, re.M)
    assert re.search(r"^lines with no estimate +no estimate +6,137\.31 +- +-$", result.stdout, re.M)


def test_report_by_rule_shows_every_bucket(run) -> None:
    run("nightly")
    result = run("report", "--by", "provider,rule", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    rules = {r["rule"] for r in rows}
    assert rules >= {"tag", "shared", "unattributed"}
    assert rules <= {"tag", "inventory", "time-window", "idle", "shared", "unattributed"}  # SPEC §4's six
    cloud = sum(Decimal(r["billed_cost"]) for r in rows if r["provider"] != "manual")
    assert cloud == FIXTURE_BILLED_TOTAL


def test_a_reader_that_stops_early_ends_the_report_quietly(run, project: Project) -> None:
    import subprocess
    import sys
    from pathlib import Path

    run("nightly")
    trainledger = Path(sys.executable).parent / "trainledger"
    result = subprocess.run(
        f"'{trainledger}' report --by project --granularity hour | head -n 1",
        shell=True,
        cwd=project.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.startswith("hour")
    assert result.stderr == ""
