"""Every query file runs against the fixture warehouse during a normal day's commands."""

from __future__ import annotations

import pytest

import generate_gcp
from conftest import Project
from focus_files import FOCUS_CONFIG, write_focus
from trainledger.core import queries


def test_every_query_file_is_used_by_the_commands(
    fake_aws, run, project: Project, monkeypatch: pytest.MonkeyPatch, demo_files
) -> None:
    used: set[str] = set()
    original = queries.load

    def recording(name: str) -> str:
        used.add(name)
        return original(name)

    monkeypatch.setattr(queries, "load", recording)
    gcp_root = project.root / "gcp-exports"
    generate_gcp.main(["--out", str(gcp_root)])
    gcp = f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{gcp_root / "gcp" / "billing" / "parquet"}"\n'
    live_tags = gcp + '[[sources]]\nname = "live-tags"\nkind = "aws-tags"\nregions = ["eu-west-3"]\n'
    project.write_config(
        project.config.read_text(encoding="utf-8") + live_tags + f'endpoint_url = "{fake_aws.endpoint}"\n'
    )
    commands = [
        ("nightly",),
        ("report",),
        ("labels",),
        ("reconcile", "exp-sft-0412"),
        ("budgets",),
        ("export", "--period", "2026-11", "--out", "nov.csv"),
        ("export", "--period", "2026-11", "--format", "focus", "--out", "nov-focus.csv"),
        ("report", "--by", "waste,project"),
        ("report", "--by", "project,commitment", "--shape"),
    ]
    for args in commands:
        result = run(*args)
        assert result.exit_code in (0, 2), (args, result.stderr)
    project.write_config(FOCUS_CONFIG + '\n[allocation]\nshared = "proportional"\n')
    write_focus(project.root / "bill.csv", [{"BilledCost": "1.00"}])
    (project.root / "experiments.jsonl").write_text("", encoding="utf-8")
    assert run("nightly").exit_code == 0
    # What the day leaves unread is what other tests read (the shared AWS fake may hold resources by now).
    assert set(queries.names()) - used <= set(OTHER_DAYS)
    assert set(OTHER_DAYS) <= set(queries.names())


# Queries this day does not reach, and the tests that do.
OTHER_DAYS = {
    "ingest/validate_line_items_unique": "a bill with a repeated line item (tests/hostile)",
    "ingest/bigquery_billing_rows": "gcp-billing from BigQuery (test_gcp_billing)",
    "ingest/delete_prices": "gcp-catalog (test_gcp_inventory)",
    "ingest/insert_price": "gcp-catalog (test_gcp_inventory)",
    "ingest/insert_seen_resource": "an inventory that finds resources (test_aws_tags, test_gcp_inventory)",
    "ingest/first_non_object": "CUR 2.0 as csv.gz (test_aws_s3, test_bad_input)",
    "ingest/number_rows_by_file": "legacy CUR csv, GCP JSON Lines (test_aws_reference_sample, test_gcp_billing)",
    "ingest/drop_temp_table": "two csv deliveries staged in one run (test_toy_source)",
    "ingest/drop_temp_view": "a staged name reused in one run (test_aws_s3, test_toy_source)",
    "ingest/raw_file_names": "files read from s3:// (test_aws_s3)",
    "ingest/insert_raw_file_name": "files read from s3:// (test_aws_s3)",
    "ingest/rename_view": "files read from s3:// (test_aws_s3)",
    "ingest/show_files_as": "files read from s3:// (test_aws_s3)",
}
