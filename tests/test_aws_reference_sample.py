"""The anonymised real legacy CUR sample (uncompressed CSV, no manifest) ingests with its total intact."""

from __future__ import annotations

import csv
from decimal import Decimal

import duckdb

from conftest import REFERENCE, Project, needs_reference

SAMPLE = REFERENCE / "aws-cur-sample" / "sample-anonymous-aws-export-dataset.csv"


def test_the_reference_legacy_cur_sample_ingests_to_the_cent(run, project: Project) -> None:
    needs_reference(SAMPLE)
    with SAMPLE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    expected = sum(Decimal(r["lineItem/UnblendedCost"]) for r in rows)  # scientific notation included
    assert expected == Decimal("1.68230869740")

    project.write_config(f'[[sources]]\nname = "sample"\nkind = "aws-cur"\nuri = "{SAMPLE}"\n')
    result = run("ingest")
    assert result.exit_code == 0, result.stderr
    assert "no report manifest" in result.stderr

    con = duckdb.connect(str(project.warehouse), read_only=True)
    got = con.execute(
        "SELECT billing_period, count(*), sum(billed_cost), count(*) FILTER (charge_category = 'Tax') FROM charges"
        " GROUP BY 1"
    ).fetchall()
    con.close()
    assert got == [("2023-11", len(rows), expected, 12)]
