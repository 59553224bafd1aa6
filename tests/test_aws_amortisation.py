"""EffectiveCost and ChargeCategory for every CUR line item type, each row computed by hand.

The rules are AWS's own (Well-Architected CUR query "amortized cost by charge type"): covered usage at its
Savings Plan / reservation effective cost, the SP recurring fee at its unused commitment, RIFee at unused
amortised upfront plus unused recurring fee, SP negation, SP upfront fee and an RI upfront Fee at zero.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from decimal import Decimal
from pathlib import Path

import duckdb

from conftest import Project

RI_ARN = "arn:aws:ec2:us-east-1:111122223333:reserved-instances/6f2c1e0a-1111-2222-3333-444455556666"
SP_ARN = "arn:aws:savingsplans::111122223333:savingsplan/3f1c9b2e-7a4d-4e8b-9c61-2d5f0a8e4b17"

# (type, unblended, extra columns, expected effective cost, expected ChargeCategory)
ROWS = [
    ("Usage", "55.04", {}, "55.04", "Usage"),
    (
        "DiscountedUsage",
        "0",
        {"reservation_effective_cost": "12.5", "reservation_reservation_a_r_n": RI_ARN},
        "12.5",
        "Usage",
    ),
    (
        "RIFee",
        "300",
        {
            "reservation_unused_amortized_upfront_fee_for_billing_period": "20",
            "reservation_unused_recurring_fee": "30",
            "reservation_reservation_a_r_n": RI_ARN,
        },
        "50",
        "Purchase",
    ),
    (
        "Fee",
        "8760",
        {"reservation_reservation_a_r_n": RI_ARN},
        "0",
        "Purchase",
    ),  # RI upfront: amortised via RIFee
    ("Fee", "100", {}, "100", "Purchase"),  # a fee with no reservation is what it costs
    (
        "SavingsPlanCoveredUsage",
        "55.04",
        {"savings_plan_savings_plan_effective_cost": "37.9776", "savings_plan_savings_plan_a_r_n": SP_ARN},
        "37.9776",
        "Usage",
    ),
    ("SavingsPlanNegation", "-55.04", {"savings_plan_savings_plan_a_r_n": SP_ARN}, "0", "Usage"),
    (
        "SavingsPlanRecurringFee",
        "80",
        {"savings_plan_total_commitment_to_date": "80", "savings_plan_used_commitment": "75.9552"},
        "4.0448",
        "Purchase",
    ),
    ("SavingsPlanUpfrontFee", "10000", {"savings_plan_savings_plan_a_r_n": SP_ARN}, "0", "Purchase"),
    ("Tax", "12.34", {}, "12.34", "Tax"),
    ("Credit", "-250", {}, "-250", "Credit"),
    ("Refund", "-20", {}, "-20", "Adjustment"),
    ("EdpDiscount", "-3.5", {}, "-3.5", "Credit"),
    ("MysteryCharge", "1.25", {}, "1.25", "Adjustment"),  # unknown: carried, reported
]


def write_export(root: Path, rows: list[tuple[str, str, dict[str, str]]]) -> None:
    """A CUR 2.0 export of one csv.gz: each row an hour of line item type, unblended cost and other columns."""
    data = root / "data/BILLING_PERIOD=2026-11"
    data.mkdir(parents=True)
    extra_columns = sorted({key for _, _, extra in rows for key in extra})
    header = [
        "identity_line_item_id",
        "identity_time_interval",
        "bill_billing_period_start_date",
        "bill_billing_period_end_date",
        "line_item_line_item_type",
        "line_item_unblended_cost",
        "line_item_currency_code",
        "line_item_usage_start_date",
        "line_item_usage_end_date",
        *extra_columns,
    ]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for n, (kind, cost, extra) in enumerate(rows):
        fixed = [f"line-{n}", "2026-11-05T10:00:00Z/2026-11-05T11:00:00Z", "2026-11-01T00:00:00Z"]
        fixed += ["2026-12-01T00:00:00Z", kind, cost, "USD", "2026-11-05T10:00:00Z", "2026-11-05T11:00:00Z"]
        writer.writerow(fixed + [extra.get(c, "") for c in extra_columns])
    (data / "x-00001.csv.gz").write_bytes(gzip.compress(out.getvalue().encode()))
    metadata = root / "metadata/BILLING_PERIOD=2026-11"
    metadata.mkdir(parents=True)
    manifest = {"executionId": "e", "dataFiles": ["s3://b/x/data/BILLING_PERIOD=2026-11/x-00001.csv.gz"]}
    (metadata / "x-Manifest.json").write_text(json.dumps(manifest))


def read(project: Project, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_each_line_item_type_is_amortised_and_categorised(run, project: Project, tmp_path: Path) -> None:
    write_export(tmp_path / "x", [(kind, cost, extra) for kind, cost, extra, _, _ in ROWS])
    project.write_config(f'[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "{tmp_path / "x"}"\n')
    result = run("ingest")
    assert result.exit_code == 0, result.stderr
    assert "1 line item(s) of unknown type 'MysteryCharge' (billed 1.25) carried as Adjustment" in (
        result.stderr
    )

    got = read(
        project,
        "SELECT row_identity, line_item_type, billed_cost, effective_cost, charge_category, charge_class "
        "FROM charges ORDER BY source_row",
    )
    expected = [
        (
            f"line-{n}",
            kind,
            Decimal(cost),
            Decimal(effective),
            category,
            "Correction" if kind == "Refund" else None,
        )
        for n, (kind, cost, _, effective, category) in enumerate(ROWS)
    ]
    assert got == expected
    assert sum(r[2] for r in got) == Decimal("19035.13")
    assert sum(r[3] for r in got) == Decimal("-0.3476")


def test_enterprise_discounts_are_shared_even_on_tagged_line_items(
    run, project: Project, tmp_path: Path
) -> None:
    """SPEC §4: "Shared charges (tax, support, untied credits, enterprise discounts) are kept as their own
    `shared` bucket". CUR writes an EDP discount per discounted line item, with that item's tags."""
    tags = json.dumps({"user_cost_label": "qwen-coder-train-sft"})
    on_item = {"line_item_resource_id": "i-0abc", "resource_tags": tags}
    rows = [("Usage", "100"), ("EdpDiscount", "-6"), ("PrivateRateDiscount", "-2"), ("Credit", "-1")]
    root = tmp_path / "x"
    write_export(root, [(kind, cost, on_item) for kind, cost in rows])
    project.write_config(f'[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "{root}"\n')
    assert run("ingest").exit_code == 0
    assert run("attribute").exit_code == 0
    got = read(
        project,
        "SELECT c.line_item_type, a.rule, a.project, a.billed_cost FROM allocations a "
        "JOIN charges c USING (charge_id) ORDER BY c.source_row",
    )
    # The tagged credit is tied to its project; the two enterprise discounts are not.
    assert got == [
        ("Usage", "tag", "qwen-coder", Decimal("100")),
        ("EdpDiscount", "shared", None, Decimal("-6")),
        ("PrivateRateDiscount", "shared", None, Decimal("-2")),
        ("Credit", "tag", "qwen-coder", Decimal("-1")),
    ]
