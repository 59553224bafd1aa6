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


def test_the_samples_providers_are_the_tables_and_named_back_as_they_wrote(run, project: Project) -> None:
    """The sample's AWS, Microsoft and Oracle rows are charges of aws, azure and oci, each to the cent of
    the raw file, and the FOCUS export names them AWS, Microsoft and Oracle again."""
    needs_reference(SAMPLE)
    project.write_config(f'[[sources]]\nname = "focus-sample"\nkind = "focus"\nuri = "{SAMPLE}"\n')
    assert run("nightly").exit_code == 0
    ids = {"AWS": "aws", "Microsoft": "azure", "Oracle": "oci"}  # SPEC §5's ids for the sample's names
    expected: dict[str, Decimal] = {}
    with SAMPLE.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["BillingPeriodStart"].startswith("2024-09"):
                provider = ids[row["ProviderName"]]
                expected[provider] = expected.get(provider, Decimal(0)) + Decimal(row["BilledCost"])
    assert sorted(expected) == ["aws", "azure", "oci"]

    result = run("export", "--period", "2024-09", "--out", "sample.csv")
    assert result.exit_code == 0, result.stderr
    got: dict[str, Decimal] = {}
    with (project.root / "sample.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            got[row["provider"]] = got.get(row["provider"], Decimal(0)) + Decimal(row["billed_cost"])
    assert got == expected

    result = run("export", "--period", "2024-09", "--format", "focus", "--out", "sample-focus.csv")
    assert result.exit_code == 0, result.stderr
    with (project.root / "sample-focus.csv").open(newline="", encoding="utf-8") as handle:
        assert {row["ProviderName"] for row in csv.DictReader(handle)} == {"AWS", "Microsoft", "Oracle"}
