"""Off-cloud charges (kind = "manual") flow through charges -> allocations like any bill."""

from __future__ import annotations

import csv
import json
from decimal import Decimal

import duckdb
import pytest

from conftest import ROOT, Project, warehouse_state

LEDGER = ROOT / "fixtures" / "offcloud-ledger.csv"
LEDGER_TOTAL = Decimal("4850.00") + Decimal("1260.00") + Decimal("318.42") + Decimal("96.10")


def test_ledger_rows_are_allocated_by_their_own_labels(run, project: Project) -> None:
    """SPEC §4: every allocation records one of six rules; a ledger row's labels are its tags."""
    assert run("nightly").exit_code in (0, 2)  # 2: the demo budget is crossed
    con = duckdb.connect(str(project.warehouse), read_only=True)
    rows = con.execute(
        "SELECT project, phase, method, experiment_id, cost_category, rule, billed_cost FROM allocations "
        "WHERE source = 'offcloud' ORDER BY billed_cost DESC"
    ).fetchall()
    assert rows == [
        ("qwen-coder", "data", "sft", "exp-sft-0412", "data", "tag", Decimal("4850.00")),
        ("qwen-coder", "eval", "sft", "exp-sft-0412", "ops", "tag", Decimal("1260.00")),
        ("qwen-coder", "eval", "sft", "exp-sft-0412", "compute", "tag", Decimal("318.42")),
        ("distill-small", "eval", "opd", "exp-opd-0425", "compute", "tag", Decimal("96.10")),
    ]


@pytest.mark.usefixtures("ran")
def test_reconcile_shows_ledger_costs_under_data_ops_and_eval(run) -> None:
    report = json.loads(run("reconcile", "exp-sft-0412", "--format", "json").stdout)
    realized = {(r["phase"], r["category"]): r["realized"] for r in report["rows"]}
    assert realized[("data", "data")] == "4850.00"
    assert realized[("eval", "ops")] == "1260.00"


def test_export_equals_cloud_bill_plus_ledger(run, project: Project) -> None:
    from test_demo_end_to_end import FIXTURE_BILLED_TOTAL

    run("nightly")
    run("export", "--period", "2026-11", "--out", "nov.csv")
    rows = list(csv.DictReader((project.root / "nov.csv").open(encoding="utf-8")))
    assert sum(Decimal(r["billed_cost"]) for r in rows) == FIXTURE_BILLED_TOTAL + LEDGER_TOTAL
    assert sum(Decimal(r["billed_cost"]) for r in rows if r["provider"] == "manual") == LEDGER_TOTAL


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "2026-11-02,,,12.x,USD,qwen-coder,data,sft,,data,V,d,r",
            "column amount: expected a decimal number, got '12.x'",
        ),
        (
            "2026-11-02,,,12.00,usdollar,qwen-coder,data,sft,,data,V,d,r",
            "column currency: expected a 3-letter currency code, got 'usdollar'",
        ),
        (
            "02/11/2026,,,12.00,USD,qwen-coder,data,sft,,data,V,d,r",
            "column date: expected a date YYYY-MM-DD (years 2000-2099), got '02/11/2026'",
        ),
        (
            "2026-11-02,,,12.00,USD,qwen-coder,data,sft,,snacks,V,d,r",
            "column category: expected one of compute, storage, network, data, ops, other, got 'snacks'",
        ),
        (
            "2026-11-02,,,12.00,USD,qwen-coder,warmup,sft,,data,V,d,r",
            "column phase: 'warmup' is not a known phase",
        ),
        ("2026-11-02,,,12.00,USD,,data,sft,,data,V,d,r", "column project: expected a value, got nothing"),
    ],
)
def test_a_bad_ledger_row_names_file_and_line_and_loads_nothing(
    run, project: Project, line: str, message: str
) -> None:
    assert run("nightly").exit_code in (0, 2)  # 2: the demo budget is crossed
    before = warehouse_state(project.warehouse)
    ledger = project.root / "ledger.csv"
    ledger.write_text(LEDGER.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    config = project.config.read_text(encoding="utf-8").replace(str(LEDGER), str(ledger))
    project.write_config(config)
    result = run("nightly")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == f"trainledger: error: {ledger}:6, {message}"
    assert warehouse_state(project.warehouse) == before
