"""The official FOCUS sample (anonymised real data with real-world flaws) ingests with kind = "focus"."""

from __future__ import annotations

import csv
from decimal import Decimal

import duckdb

from conftest import REFERENCE, Project, needs_reference

SAMPLE = REFERENCE / "focus-sample" / "FOCUS-1.0" / "focus_sample.csv"


def test_official_focus_sample_ingests_to_the_cent(run, project: Project) -> None:
    needs_reference(SAMPLE)
    project.write_config(f'[[sources]]\nname = "focus-sample"\nkind = "focus"\nuri = "{SAMPLE}"\n')
    result = run("nightly")
    assert result.exit_code == 0, result.stderr

    expected: dict[str, Decimal] = {}
    with SAMPLE.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            period = row["BillingPeriodStart"][:7]
            expected[period] = expected.get(period, Decimal(0)) + Decimal(row["BilledCost"])
    assert sorted(expected) == ["2024-09", "2024-10"]

    con = duckdb.connect(str(project.warehouse), read_only=True)
    got = dict(con.execute("SELECT billing_period, sum(billed_cost) FROM charges GROUP BY 1").fetchall())
    assert got == expected
    allocated = dict(
        con.execute("SELECT billing_period, sum(billed_cost) FROM allocations GROUP BY 1").fetchall()
    )
    assert allocated == expected
    # 'NULL' strings are real nulls; tags were read as JSON objects.
    assert con.execute(
        "SELECT count(*) FROM charges WHERE resource_id = 'NULL' OR charge_class = 'NULL'"
    ).fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM charges WHERE tags <> '{}'").fetchone() == (711,)
