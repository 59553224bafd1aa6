"""Every query file runs against the fixture warehouse during a normal day's commands, and its header says
what it is and declares exactly the parameters it uses."""

from __future__ import annotations

import re

import pytest

import generate_gcp
from conftest import Project
from fakes import http_server, webhook
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
    live_tags += f'endpoint_url = "{fake_aws.endpoint}"\n'
    # A budget with an amount and a phase share, whose crossed threshold is posted to a webhook.
    budget = (
        '[[budgets]]\nname = "all"\nperiod = "monthly"\namount = "1.00"\ncurrency = "USD"\nthresholds = [0.5]\n'
        'max_share = { phase = "eval", share = 0.4 }\n'
    )
    commands = [
        ("nightly",),
        ("report",),
        ("labels",),
        ("reconcile", "exp-sft-0412"),
        ("estimate", "exp-rl-0421"),
        ("budgets",),
        ("experiments",),
        ("export", "--period", "2026-11", "--out", "nov.csv"),
        ("export", "--period", "2026-11", "--format", "focus", "--out", "nov-focus.csv"),
        (
            "export",
            "--period",
            "2026-11",
            "--format",
            "focus",
            "--focus-version",
            "1.3",
            "--out",
            "nov-focus13.csv",
        ),
        ("report", "--by", "waste,project"),
        ("report", "--by", "project,commitment", "--shape"),
        ("report", "--by", "method", "--with-metrics"),
        ("runs",),
        ("site", "--out", "site"),
    ]
    with http_server(webhook()) as hook:
        alerts = f'[alerts]\nwebhook_url = "{hook.url}/hook"\n'
        project.write_config(project.config.read_text(encoding="utf-8") + live_tags + budget + alerts)
        for args in commands:
            result = run(*args)
            assert result.exit_code in (0, 2), (args, result.stderr)
    assert run("reconcile", "exp-nowhere").exit_code == 1  # neither in the log nor in any allocation
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
    "ingest/cost_sum_reached": "a bill whose amounts add up to 10^26 (tests/hostile, test_bill_fuzz)",
    "ingest/first_file": "CUR 2.0 parquet with a map column of another type (test_cur2_tags_as_text)",
    "ingest/bigquery_billing_rows": "gcp-billing from BigQuery (test_gcp_billing)",
    "ingest/bigquery_focus_rows": "gcp-focus from BigQuery (test_gcp_focus)",
    "ingest/validate_gcp_focus": "gcp-focus (test_gcp_focus)",
    "ingest/normalize_gcp_focus": "gcp-focus (test_gcp_focus)",
    "ingest/gcp_focus_money": "gcp-focus (test_gcp_focus, test_gcp_money_rounding)",
    "ingest/delete_prices": "gcp-catalog (test_gcp_inventory)",
    "ingest/insert_price": "gcp-catalog (test_gcp_inventory)",
    "ingest/insert_seen_resource": "an inventory that finds resources (test_aws_tags, test_gcp_inventory)",
    "ingest/first_non_object": "CUR 2.0 as csv.gz (test_aws_s3, test_bad_input)",
    "ingest/drop_temp_table": "two csv deliveries staged in one run (test_toy_source)",
    "ingest/drop_temp_view": "a staged name reused in one run (test_aws_s3, test_toy_source)",
    "report/period_allocations": "the Python API's lazy allocations (test_python_api)",
    "ingest/raw_file_names": "files read from s3:// (test_aws_s3)",
    "ingest/insert_raw_file_name": "files read from s3:// (test_aws_s3)",
    "ingest/rename_view": "files read from s3:// (test_aws_s3)",
    "ingest/show_files_as": "files read from s3:// (test_aws_s3)",
    "ingest/api_cost_rows": "openai-costs and anthropic-costs (test_api_costs)",
    "ingest/insert_api_cost_row": "openai-costs and anthropic-costs (test_api_costs)",
    "ingest/normalize_api_costs": "openai-costs and anthropic-costs (test_api_costs)",
    "ingest/rated_rows": "focus-usage and cluster, priced by [[rates]] (test_rate_card)",
    "ingest/insert_rated_row": "focus-usage and cluster, priced by [[rates]] (test_rate_card)",
    "ingest/normalize_rated": "focus-usage and cluster, priced by [[rates]] (test_rate_card)",
    "ingest/delete_unpriced": "focus-usage and cluster, priced by [[rates]] (test_rate_card)",
    "ingest/insert_unpriced": "usage no [[rates]] entry prices (test_rate_card)",
    "schema/migrate_v3_charges": "a schema 2 warehouse brought up to date (test_schema_version)",
    "schema/migrate_v3_charge_kinds": "a schema 2 warehouse brought up to date (test_schema_version)",
    "schema/migrate_v3_charge_categories": "a schema 2 warehouse brought up to date (test_schema_version)",
    "schema/migrate_v3_experiment_resources": "a schema 2 warehouse brought up to date (test_schema_version)",
    "schema/migrate_v3_unpriced_usage": "a schema 2 warehouse brought up to date (test_schema_version)",
    "estimate/prices": "a price sheet with a per-GPU-hour price column (test_estimator, test_estimate_cli)",
    "report/api_spend": "the site's API spend page of a month with LLM API spend (test_api_cost_runs)",
    "report/reconcile_reserved_windows": "reconcile with [[reservations]] (test_reserved_capacity)",
    "report/reservation_unused": "reconcile with [[reservations]] (test_reserved_capacity)",
}


def header_and_body(text: str) -> tuple[str, str]:
    """The leading comment lines (the header) and the rest of a query file."""
    lines = text.splitlines()
    count = next((i for i, line in enumerate(lines) if not line.startswith("--")), len(lines))
    return "\n".join(line[2:] for line in lines[:count]), "\n".join(lines[count:])


def parameters_used(sql: str) -> set[str]:
    """``$name`` tokens outside comments, string literals and quoted identifiers."""
    code = re.sub(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", " ", sql, flags=re.DOTALL)
    return set(re.findall(r"\$([A-Za-z_]\w*)", code))


@pytest.mark.parametrize("name", queries.names())
def test_every_query_file_says_what_it_is_and_declares_exactly_its_parameters(name: str) -> None:
    header, body = header_and_body(queries.load(name))
    assert header.split("\n", 1)[0].strip(), f"{name}: no header (purpose, grain, parameters)"
    assert re.search(r"\bgrain\b", header, re.IGNORECASE), f"{name}: the header states no grain"
    declared = set(re.findall(r"\$([A-Za-z_]\w*)", header))
    slots = set(re.findall(r"\{\{(\w+)\}\}", body))
    # A file filled in through connectors/sql_slots.py names each slot it has; a row insert may bind positionally
    # (it says so), a BigQuery statement binds @names, and a slot file takes the parameters of its slot.
    assert set(re.findall(r"\{\{(\w+)\}\}", header)) == slots, f"{name}: slots used and declared differ"
    positional = "?" in re.sub(r"--[^\n]*|'(?:[^']|'')*'", " ", body)
    assert positional == bool(re.search(r"parameters: positional", header, re.IGNORECASE)), name
    if not declared and not positional:
        assert re.search(
            r"no parameters|parameters: none|parameters: those of \{\{|parameters: bigquery's @",
            header,
            re.IGNORECASE,
        ), f"{name}: no parameters line"
    assert declared == parameters_used(body), name


def test_the_parameter_scan_skips_comments_strings_and_identifiers() -> None:
    sql = "SELECT '$a', \"$b\", 'it''s $c' -- $d\n/* $e */ FROM t WHERE x = $f AND y = $g_2 || '$'"
    assert parameters_used(sql) == {"f", "g_2"}
    assert header_and_body("-- Purpose.\n-- Grain: row. Parameters: $f.\nSELECT $f") == (
        " Purpose.\n Grain: row. Parameters: $f.",
        "SELECT $f",
    )
