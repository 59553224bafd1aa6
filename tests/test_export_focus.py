"""`export --format focus`: the attributed month as a FOCUS 1.2 Cost and Usage file.

The checks below are FOCUS 1.2's own (column ids, Date/Time Format, Numeric Format, Key-Value Format,
allowed values, nullability of the mandatory columns), plus ours: the money adds up to the bill.
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from conftest import Project
from test_demo_end_to_end import FIXTURE_BILLED_TOTAL as CLOUD_TOTAL
from test_manual_ledger import LEDGER_TOTAL
from trainledger.cli import cli

FIXTURE_BILLED_TOTAL = CLOUD_TOTAL + LEDGER_TOTAL  # the demo bills the cloud month and the off-cloud ledger

# FOCUS 1.2 Cost and Usage: the mandatory columns (focus-validator 2.2.1 model 1.2 rules CostAndUsage-D-*-M).
MANDATORY = {
    "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd",
    "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargePeriodEnd",
    "ChargePeriodStart", "ContractedCost", "EffectiveCost", "InvoiceIssuerName", "ListCost", "PricingQuantity",
    "PricingUnit", "ProviderName", "PublisherName", "ServiceCategory", "ServiceName",
}  # fmt: skip
# Recommended or conditional FOCUS columns we can fill from the bill.
OPTIONAL = {
    "ChargeFrequency", "CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountStatus",
    "ConsumedQuantity", "ConsumedUnit", "InvoiceId", "PricingCategory", "RegionId", "ResourceId", "ResourceType",
    "ServiceSubcategory", "SubAccountId", "Tags",
}  # fmt: skip
ALLOCATION = ["x_Project", "x_Phase", "x_Method", "x_ExperimentId", "x_AllocationRule"]
MONEY = ("BilledCost", "EffectiveCost", "ListCost", "ContractedCost")
TIMES = ("BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd")
SERVICE_CATEGORIES = {
    "AI and Machine Learning", "Analytics", "Business Applications", "Compute", "Databases", "Developer Tools",
    "Multicloud", "Identity", "Integration", "Internet of Things", "Management and Governance", "Media",
    "Migration", "Mobile", "Networking", "Security", "Storage", "Web", "Other",
}  # fmt: skip
DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")  # Date/Time Format: UTC, T, Z
DECIMAL = re.compile(r"^-?\d+(\.\d+)?$")  # Numeric Format: no exponent needed, no '+', no commas
CURRENCY = re.compile(r"^[A-Z]{3}$")  # ISO 4217 alphabetic code


def export(project: Project, out: Path, *extra: str) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "--config",
            str(project.config),
            "export",
            "--period",
            "2026-11",
            "--format",
            "focus",
            "--out",
            str(out),
            *extra,
        ],
    )
    assert result.exit_code == 0, result.stderr


@pytest.fixture(scope="module")
def focus_rows(nightly_warehouse: Project, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    out = tmp_path_factory.mktemp("focus") / "2026-11.csv"
    export(nightly_warehouse, out)
    with out.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_columns_are_focus_1_2_plus_the_allocation(focus_rows) -> None:
    columns = list(focus_rows[0])
    assert set(columns) >= MANDATORY
    focus_columns = [c for c in columns if not c.startswith("x_")]
    assert set(focus_columns) == MANDATORY | OPTIONAL
    assert focus_columns == sorted(focus_columns)  # FOCUS lists its columns alphabetically; so do we
    assert [c for c in columns if c.startswith("x_")][:5] == ALLOCATION


def test_values_have_the_focus_types(focus_rows) -> None:
    for number, row in enumerate(focus_rows, start=2):
        where = f"row {number}"
        for column in TIMES:
            assert DATETIME.match(row[column]), (where, column, row[column])
        assert (
            row["ChargePeriodStart"] < row["ChargePeriodEnd"]
            and row["BillingPeriodStart"] < row["BillingPeriodEnd"]
        )
        for column in MONEY:
            assert DECIMAL.match(row[column]), (where, column, row[column])
        for column in ("PricingQuantity", "ConsumedQuantity"):
            assert row[column] == "" or DECIMAL.match(row[column]), (where, column, row[column])
        assert CURRENCY.match(row["BillingCurrency"])
        assert row["ChargeCategory"] in {"Usage", "Purchase", "Tax", "Credit", "Adjustment"}
        assert row["ChargeClass"] in {"", "Correction"}
        assert row["ChargeFrequency"] in {"One-Time", "Recurring", "Usage-Based"}
        assert row["PricingCategory"] in {"", "Standard", "Dynamic", "Committed", "Other"}
        assert row["CommitmentDiscountStatus"] in {"", "Used", "Unused"}
        assert row["ServiceCategory"] in SERVICE_CATEGORIES
        tags = json.loads(row["Tags"])
        assert isinstance(tags, dict) and all(
            isinstance(v, str | int | float | bool) or v is None for v in tags.values()
        )
        for column in (
            "BillingAccountId",
            "ServiceName",
            "ProviderName",
            "PublisherName",
            "InvoiceIssuerName",
        ):
            assert row[column], (where, column)
        # Nullability of the mandatory quantity columns (FOCUS 1.2 PricingQuantity, PricingUnit).
        assert (row["PricingQuantity"] == "") == (row["ChargeCategory"] == "Tax")
        assert (row["PricingUnit"] == "") == (row["PricingQuantity"] == "")
        # A credit is unrelated to other charges: its ListCost and ContractedCost are its BilledCost.
        if row["ChargeCategory"] == "Credit":
            assert row["ListCost"] == row["ContractedCost"] == row["BilledCost"]
        # A commitment purchase is not the cost of the work: EffectiveCost 0 (its unused part is a Usage row).
        if row["ChargeCategory"] == "Purchase" and row["CommitmentDiscountId"]:
            assert Decimal(row["EffectiveCost"]) == 0
    categories = defaultdict(set)
    for row in focus_rows:
        categories[row["ServiceName"]].add((row["ServiceCategory"], row["ServiceSubcategory"]))
    assert all(len(pairs) == 1 for pairs in categories.values()), categories
    assert categories["Amazon Elastic Compute Cloud"] == {("Compute", "Virtual Machines")}


def test_billed_cost_adds_up_to_the_bill_and_effective_cost_to_the_allocations(focus_rows) -> None:
    assert sum(Decimal(r["BilledCost"]) for r in focus_rows) == FIXTURE_BILLED_TOTAL
    assert sum(Decimal(r["EffectiveCost"]) for r in focus_rows) == FIXTURE_BILLED_TOTAL
    # The Savings Plan's unused commitment: 720 hourly fees of $80, of which $52,890.7776 went unused.
    unused = [r for r in focus_rows if r["CommitmentDiscountStatus"] == "Unused"]
    assert len(unused) == 720
    assert sum(Decimal(r["EffectiveCost"]) for r in unused) == Decimal("52890.7776")
    assert {r["BilledCost"] for r in unused} == {"0.00"}


def test_shares_of_a_charge_are_rows_that_sum_to_it(run, project: Project, demo_files: Path) -> None:
    """Two runs share the p4d instance i-0e55000000000001 (tagged qwen-coder sft, no experiment), one with
    6 GPUs and one with 2: each of its ten hours ($21.958) is split 3:1 between them."""
    log = project.root / "shared-instance.jsonl"
    records = [
        {"experiment_id": eid, "project": "qwen-coder", "method": "sft", "status": "succeeded",
         "started_at": "2026-11-20T00:00:00Z", "ended_at": "2026-11-20T10:00:00Z",
         "phases": [{"phase": "train", "resources": [{"provider": "aws", "resource_id": "i-0e55000000000001", "gpus": gpus}]}]}
        for eid, gpus in (("exp-a", 6), ("exp-b", 2))
    ]  # fmt: skip
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    project.write_config(
        project.config.read_text(encoding="utf-8").replace(str(demo_files / "experiments.jsonl"), str(log))
    )
    assert run("nightly").exit_code in (0, 2)
    export(project, project.root / "focus.csv")
    rows = list(csv.DictReader((project.root / "focus.csv").open(encoding="utf-8")))
    hours = [r for r in rows if r["ResourceId"] == "i-0e55000000000001" and r["ConsumedUnit"] == "Hours"]
    by_charge = defaultdict(list)
    for r in hours:
        by_charge[r["x_ChargeId"]].append(r)
    assert len(by_charge) == 10
    for shares in by_charge.values():
        assert [(r["x_ExperimentId"], r["BilledCost"], r["PricingQuantity"]) for r in shares] == [
            ("exp-a", "16.4685", "0.75"),
            ("exp-b", "5.4895", "0.25"),
        ]
    assert sum(Decimal(r["BilledCost"]) for r in rows) == FIXTURE_BILLED_TOTAL


def test_parquet_has_decimal_money_and_utc_timestamps(nightly_warehouse: Project, tmp_path: Path) -> None:
    export(nightly_warehouse, tmp_path / "2026-11.parquet")
    table = pq.read_table(tmp_path / "2026-11.parquet")
    for column in MONEY:
        assert table.schema.field(column).type == pa.decimal128(38, 12)
    for column in TIMES:
        assert table.schema.field(column).type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("BillingAccountId").type == pa.string()
    assert sum(table.column("BilledCost").to_pylist()) == FIXTURE_BILLED_TOTAL


def test_the_export_is_byte_identical_run_to_run_and_nightly_writes_it(run, project: Project) -> None:
    project.write_config(
        project.config.read_text(encoding="utf-8").replace(
            'dir = "exports"', 'dir = "exports"\nformat = "focus"'
        )
    )
    assert run("nightly").exit_code in (0, 2)
    first = (project.root / "exports" / "trainledger-2026-11-focus.csv").read_bytes()
    assert run("nightly").exit_code in (0, 2)
    assert (project.root / "exports" / "trainledger-2026-11-focus.csv").read_bytes() == first


@pytest.mark.usefixtures("ran")
def test_focus_has_no_by(run, project: Project) -> None:
    result = run("export", "--period", "2026-11", "--format", "focus", "--by", "project", "--out", "x.csv")
    assert result.exit_code == 1  # a usage error is a user error
    assert "--by applies to --format csv" in result.stderr


def test_the_file_is_written_on_one_thread_and_the_connection_gets_its_threads_back(
    nightly_warehouse: Project, tmp_path: Path
) -> None:
    """The sorted file's query runs on one thread (two ran out of memory on a proportional month instead
    of spilling: BENCHMARKS.md, issue 33); nightly goes on after the export with the threads it had."""
    from trainledger.core import config as config_module
    from trainledger.outputs import export_focus
    from trainledger.warehouse import connection

    config = config_module.load(str(nightly_warehouse.config), None)
    with connection.open_warehouse(config, write=False) as con:
        con.execute("SET threads = 3")
        pieces = export_focus.csv_pieces(con, "2026-11")
        assert next(pieces).startswith("BilledCost,")  # the query has run
        during = con.execute("SELECT current_setting('threads')").fetchall()
        pieces.close()
        assert during == [(1,)]
        assert con.execute("SELECT current_setting('threads')").fetchall() == [(3,)]
        export_focus.write(con, "2026-11", tmp_path / "2026-11.parquet")
        assert con.execute("SELECT current_setting('threads')").fetchall() == [(3,)]
