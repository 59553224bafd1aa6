"""Every real file of ../shared/reference-data through its reader (issue 30, point 7): each ingests with
totals equal to an independent sum of its text (csv module or pyarrow, exact Decimal), or is refused with
a message naming its real cause.

Which test reads which file (the audit the first test keeps honest):
- aws-cur-sample/sample-anonymous-aws-export-dataset.csv: kind aws-cur, test_aws_reference_sample.py;
- aws-cur-workshop/Oct2018-WorkshopCUR-00001.snappy.parquet: kind aws-cur, here (its SOURCE.md totals);
- focus-sample/FOCUS-1.0/focus_sample.csv: kind focus, test_focus_reference.py;
- focus-sample/spec-examples-v1.2/*/*.csv: kind focus, here.
"""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import REFERENCE, Project, needs_reference

WORKSHOP = REFERENCE / "aws-cur-workshop" / "Oct2018-WorkshopCUR-00001.snappy.parquet"
SPEC_EXAMPLES = REFERENCE / "focus-sample" / "spec-examples-v1.2"
READ_ELSEWHERE = {
    "aws-cur-sample/sample-anonymous-aws-export-dataset.csv": "test_aws_reference_sample.py",
    "focus-sample/FOCUS-1.0/focus_sample.csv": "test_focus_reference.py",
}
EXAMPLE_NAMES = [
    "commitment_discount_flexibility/one_hundred_percent_utilization_with_commitment_discount_flexibility_with_1_resource.csv",
    "commitment_discount_flexibility/one_hundred_percent_utilization_with_commitment_discount_flexibility_with_2_resources.csv",
    "commitment_discount_flexibility/one_hundred_percent_utilization_without_commitment_discount_flexibility.csv",
    "commitment_discount_flexibility/zero_percent_utilization_without_commitment_discount_flexibility.csv",
    "commitment_discount_scenarios/commitment_discount_purchase_scenario_1.csv",
    "commitment_discount_scenarios/commitment_discount_purchase_scenario_2.csv",
    "commitment_discount_scenarios/commitment_discount_purchase_scenario_3.csv",
    "commitment_discount_scenarios/commitment_discount_usage_scenario_1.csv",
    "commitment_discount_scenarios/commitment_discount_usage_scenario_2.csv",
    "commitment_discount_scenarios/commitment_discount_usage_scenario_3.csv",
    "commitment_discount_scenarios/commitment_discount_usage_scenario_4.csv",
]
# Two purchase scenarios end a charge period at hour 30 ("2023-02-01T30:00:00Z"): no time of day.
HOUR_30 = {
    "commitment_discount_scenarios/commitment_discount_purchase_scenario_2.csv": 3,
    "commitment_discount_scenarios/commitment_discount_purchase_scenario_3.csv": 4,
}


def test_every_reference_file_has_a_reader_and_a_test() -> None:
    needs_reference(REFERENCE)
    data = {
        p.relative_to(REFERENCE).as_posix()
        for p in REFERENCE.rglob("*")
        if p.is_file() and not p.name.startswith(("SOURCE", "LICENSE", "README"))
    }
    here = {WORKSHOP.relative_to(REFERENCE).as_posix()} | {
        f"focus-sample/spec-examples-v1.2/{n}" for n in EXAMPLE_NAMES
    }
    assert data == here | set(READ_ELSEWHERE)


def ingest(run, project: Project, kind: str, uri: Path):
    project.write_config(f'[[sources]]\nname = "ref"\nkind = "{kind}"\nuri = "{uri}"\n')
    return run("ingest")


def test_the_workshop_cur_month_ingests_to_its_source_totals(run, project: Project) -> None:
    """A real legacy CUR month (Athena parquet, RI line items): BilledCost and AWS's amortised cost."""
    needs_reference(WORKSHOP)
    columns = [
        "line_item_line_item_type",
        "line_item_unblended_cost",
        "reservation_effective_cost",
        "reservation_unused_amortized_upfront_fee_for_billing_period",
        "reservation_unused_recurring_fee",
    ]
    table = pq.read_table(WORKSHOP, columns=columns).to_pylist()

    def money(value: float | None) -> Decimal:  # a double's shortest text, exactly
        return Decimal(repr(value)) if value is not None else Decimal(0)

    billed = sum((money(r["line_item_unblended_cost"]) for r in table), Decimal(0))
    # AWS's amortisation rule (FIELD-NOTES, Well-Architected CUR queries): RI usage at its effective cost,
    # an RIFee row at its unused amortised upfront plus unused recurring fee, the rest as billed.
    amortised = Decimal(0)
    for r in table:
        if r["line_item_line_item_type"] == "DiscountedUsage":
            amortised += money(r["reservation_effective_cost"])
        elif r["line_item_line_item_type"] == "RIFee":
            amortised += money(r["reservation_unused_amortized_upfront_fee_for_billing_period"]) + money(
                r["reservation_unused_recurring_fee"]
            )
        else:
            amortised += money(r["line_item_unblended_cost"])
    # The totals its SOURCE.md states.
    assert (billed, amortised) == (Decimal("4064.4831315379"), Decimal("4195.9571093179"))

    result = ingest(run, project, "aws-cur", WORKSHOP)
    assert result.exit_code == 0, result.stderr
    con = duckdb.connect(str(project.warehouse), read_only=True)
    assert con.execute(
        "SELECT billing_period, count(*), sum(billed_cost), sum(effective_cost) FROM charges GROUP BY 1"
    ).fetchall() == [("2018-10", len(table), billed, amortised)]


def spec_example_rows(path: Path) -> list[dict[str, str]]:
    """The example's rows by the csv module (its blank lines between rows are no rows)."""
    with path.open(newline="", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if any(r.values())]


def with_currency(source: Path, target: Path) -> Path:
    """The example with BillingCurrency USD added, byte for byte otherwise (CRLF, blank lines kept)."""
    out = []
    for number, line in enumerate(source.read_bytes().splitlines(keepends=True)):
        body = line.rstrip(b"\r\n")
        ending = line[len(body) :]
        if number == 0:
            body += b",BillingCurrency"
        elif body:
            body += b",USD"
        out.append(body + ending)
    target.write_bytes(b"".join(out))
    return target


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_a_spec_example(run, project: Project, tmp_path: Path, name: str) -> None:
    """The spec's worked examples leave out the mandatory BillingCurrency: refused for that. Given it (as
    their user would), each ingests to its own sums, its `null` cells null, or is refused for its hour-30
    ChargePeriodEnd."""
    example = SPEC_EXAMPLES / name
    needs_reference(example)
    refused = ingest(run, project, "focus", example)
    assert refused.exit_code == 1
    assert refused.stderr.strip().splitlines()[-1] == (
        f"trainledger: error: {example}: not a FOCUS file: missing column(s) BillingCurrency"
    )

    fixed = with_currency(example, tmp_path / example.name)
    result = ingest(run, project, "focus", fixed)
    if name in HOUR_30:
        assert result.exit_code == 1
        assert result.stderr.strip().splitlines()[-1] == (
            f"trainledger: error: {fixed}, row {HOUR_30[name]}, column ChargePeriodEnd: expected an ISO 8601 time "
            "in UTC such as 2026-11-01T00:00:00Z (years 2000-2099), got '2023-02-01T30:00:00Z'"
        )
        assert not project.warehouse.exists() or duckdb.connect(
            str(project.warehouse), read_only=True
        ).execute("SELECT count(*) FROM charges").fetchone() == (0,)
        return
    assert result.exit_code == 0, result.stderr
    rows = spec_example_rows(example)
    con = duckdb.connect(str(project.warehouse), read_only=True)
    assert con.execute(
        "SELECT count(*), sum(billed_cost), sum(effective_cost), count(commitment_id) FROM charges"
    ).fetchone() == (
        len(rows),
        sum(Decimal(r["BilledCost"]) for r in rows),
        sum(Decimal(r["EffectiveCost"]) for r in rows),
        sum(r.get("CommitmentDiscountId", "null") != "null" for r in rows),
    )
