"""gcp-focus: Google's FOCUS export of the GCP test month, as files (JSON Lines, parquet) and through
BigQuery (local REST fake), ties to the detailed export's invoice and attributes as gcp-billing does.

Expected values come from the detailed-export file read with ``json`` into Decimals (tests/gcp_month.py:
cost plus credits over the invoice month) and from the FOCUS rows converted independently
(tests/gcp_focus_month.py); the gcp-billing ingest of the same month is the other side of the comparison.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import Result

import gcp_focus_month
import gcp_month
from conftest import Project
from gcp_fakes import BigQueryFake, Table, _timestamp_param

TABLE = (
    "ml-billing.gcp_billing_immutable_01C2D3_E4F5A6_B7C8D9_us.gcp_billing_export_focus_01C2D3_E4F5A6_B7C8D9"
)
INVOICE = Decimal("709.281959")  # test_gcp_invoice.py works it out by hand
WRITERS: dict[str, Callable[[Path], Path]] = {
    "jsonl": lambda root: gcp_focus_month.write_jsonl(root / "focus" / "focus-000.json"),
    "parquet": lambda root: gcp_focus_month.write_parquet(root / "focus" / "focus-000.parquet"),
}


def source(kind: str, where: str) -> str:
    return f'[[sources]]\nname = "gcp"\nkind = "{kind}"\n{where}\n'


def query(project: Project, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_focus_month_bills_what_the_detailed_export_invoices(tmp_path: Path) -> None:
    detailed = gcp_month.read_rows(gcp_month.write(tmp_path / "billing.json"))
    focus = gcp_focus_month.write_jsonl(tmp_path / "focus.json")
    assert gcp_month.invoice_total(detailed) == INVOICE
    assert gcp_focus_month.billed_total(focus) == INVOICE
    # Credits are not rows: each row carries its own, and BilledCost nets them.
    rows = gcp_focus_month.read_jsonl(focus)
    assert {r["ChargeCategory"] for r in rows} == {"Usage", "Purchase", "Tax", "Adjustment"}
    assert sum(len(r.get("x_Credits", [])) for r in rows) == sum(len(r["credits"]) for r in detailed)


@pytest.mark.parametrize("form", list(WRITERS))
def test_files_ingest_to_the_invoice_total_once(
    run: Callable[..., Result], project: Project, form: str
) -> None:
    path = WRITERS[form](project.root)
    project.write_config(source("gcp-focus", f'uri = "{path.parent}"'))
    first = run("ingest")
    assert first.exit_code == 0, first.stderr
    assert first.stdout == f"gcp\t{gcp_month.PERIOD}\t25 rows, billed {INVOICE:,.2f} USD\n"
    assert query(project, "SELECT count(*), sum(billed_cost), sum(effective_cost) FROM charges") == [
        (25, INVOICE, INVOICE)
    ]
    # Append-only: the same rows read again (and a month re-read) add nothing.
    assert run("ingest").exit_code == 0
    assert run("ingest", "--period", gcp_month.PERIOD).exit_code == 0
    assert query(project, "SELECT count(*), sum(billed_cost) FROM charges") == [(25, INVOICE)]
    # The credits stay listed on their rows, by type, as gcp-billing keeps them.
    credits = query(project, "SELECT credits FROM charges WHERE credits <> '[]'")
    kinds = {c["type"] for (text,) in credits for c in json.loads(text)}
    assert kinds == {"COMMITTED_USAGE_DISCOUNT", "SUSTAINED_USAGE_DISCOUNT", "PROMOTION", "FREE_TIER"}


def experiment_log() -> str:
    """The month's RL run: the unlabelled rollout VM by its window, the labelled trainer by its tags."""
    start = gcp_month.RUN_START
    times = {
        "started_at": start.isoformat().replace("+00:00", "Z"),
        "ended_at": (start + timedelta(hours=gcp_month.HOURS)).isoformat().replace("+00:00", "Z"),
    }
    phases = [
        {"phase": phase, **times, "resources": [{"provider": "gcp", "resource_id": vm[0], "gpus": 8}]}
        for phase, vm in (("rollout", gcp_month.ROLLOUT), ("train", gcp_month.TRAINER))
    ]
    record = {"experiment_id": "exp-rl-gcp-0105", "project": "math-reasoner", "method": "rl"}
    return json.dumps({**record, "status": "succeeded", **times, "phases": phases}) + "\n"


def allocations(run: Callable[..., Result], project: Project, sources: str) -> list[tuple[Any, ...]]:
    project.warehouse.unlink(missing_ok=True)
    project.write_config(sources + '\n[experiments]\nuri = "experiments.jsonl"\n')
    result = run("nightly")
    assert result.exit_code == 0, result.stderr
    return query(
        project,
        "SELECT project, experiment_id, phase, cost_category, rule, sum(billed_cost), sum(effective_cost) "
        "FROM allocations GROUP BY ALL ORDER BY ALL",
    )


def test_allocations_per_project_match_the_detailed_export(
    run: Callable[..., Result], project: Project
) -> None:
    (project.root / "experiments.jsonl").write_text(experiment_log(), encoding="utf-8")
    detailed = gcp_month.write(project.root / "billing" / "billing.json")
    focus = gcp_focus_month.write_parquet(project.root / "focus" / "focus.parquet")

    from_billing = allocations(run, project, source("gcp-billing", f'uri = "{detailed}"'))
    from_focus = allocations(run, project, source("gcp-focus", f'uri = "{focus}"'))
    assert from_focus == from_billing
    assert sum(r[5] for r in from_focus) == INVOICE
    by_project: dict[str | None, Decimal] = {}
    for row in from_focus:
        by_project[row[0]] = by_project.get(row[0], Decimal(0)) + row[5]
    detailed_rows = gcp_month.read_rows(detailed)
    run_cost = sum(
        (gcp_month.net(r) for r in detailed_rows if (r.get("resource") or {}).get("name")), Decimal(0)
    )
    assert by_project["math-reasoner"] == run_cost == Decimal("196.98828")


# ---------------------------------------------------------------------------------------------------------
# BigQuery
# ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def bigquery() -> Iterator[tuple[BigQueryFake, Table, list[dict[str, Any]]]]:
    """The FOCUS table holding the month's first 15 rows; tests add the rest."""
    rows = gcp_focus_month.focus_rows()
    table = Table(gcp_focus_month.SCHEMA, rows[:15], "x_ExportTime", gcp_focus_month.invoice_month)
    with BigQueryFake({TABLE: table}, page_size=10) as fake:
        yield fake, table, rows


def test_bigquery_pulls_append_every_row_once(
    run: Callable[..., Result], project: Project, bigquery: tuple[BigQueryFake, Table, list[dict[str, Any]]]
) -> None:
    fake, table, rows = bigquery
    project.write_config(source("gcp-focus", f'table = "{TABLE}"\napi_endpoint = "{fake.url}"'))
    assert run("ingest").exit_code == 0
    assert query(project, "SELECT count(*) FROM charges") == [(15,)]
    table.rows = rows  # the rest of the month is exported later, with a later x_ExportTime
    later = gcp_month.EXPORTED + timedelta(hours=6)
    for row in table.rows[15:]:
        row["x_ExportTime"] = later
    second = run("ingest")
    assert second.exit_code == 0, second.stderr
    assert run("ingest", "--period", gcp_month.PERIOD).exit_code == 0
    assert query(project, "SELECT count(*), sum(billed_cost) FROM charges") == [(25, INVOICE)]

    params = [
        {p["name"]: p["parameterValue"].get("value") for p in r.body["queryParameters"]}
        for r in fake.requests
        if r.path.endswith("/queries") and r.body
    ]
    assert [_timestamp_param(p["since"]) for p in params[:2]] == [
        _timestamp_param("1970-01-01 00:00:00+00:00"),
        gcp_month.EXPORTED - timedelta(days=3),
    ]
    assert [p["invoice_month"] for p in params] == [None, None, "202701"]
    assert "x_ExportTime >= @since" in fake.requests[0].body["query"]  # type: ignore[index]
    assert query(project, "SELECT DISTINCT version FROM ingest_state") == [
        (f"export_time<={later.replace(tzinfo=None).isoformat()}",)
    ]


def test_a_missing_focus_table_names_it(run: Callable[..., Result], project: Project) -> None:
    with BigQueryFake({}) as fake:
        project.write_config(source("gcp-focus", f'table = "{TABLE}"\napi_endpoint = "{fake.url}"'))
        result = run("ingest")
    assert result.exit_code == 1
    assert result.stderr.rstrip().endswith(
        "check `table`: the export table is gcp_billing_export_focus_<ACCOUNT>, in dataset "
        "gcp_billing_immutable_<ACCOUNT>_<location>"
    )


# ---------------------------------------------------------------------------------------------------------
# Bad input: one line, nothing written.
# ---------------------------------------------------------------------------------------------------------


def test_the_detailed_export_given_as_focus_is_refused(run: Callable[..., Result], project: Project) -> None:
    detailed = gcp_month.write(project.root / "billing.json")
    project.write_config(source("gcp-focus", f'uri = "{detailed}"'))
    result = run("ingest")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"trainledger: error: {detailed}: not a Google FOCUS export: missing column(s) BilledCost, "
        "BillingCurrency, BillingPeriodStart, BillingPeriodEnd, ChargeCategory ..."
    )


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("BilledCost", "12,50", "expected a decimal number, got '12,50'"),
        ("ChargeCategory", "Refund", "expected one of Usage, Purchase, Tax, Credit, Adjustment, got 'Refund'"),
        ("x_ExportTime", "1899-12-31 00:00:00 UTC", "expected a timestamp in 2000-2099, got "
         "'1899-12-31 00:00:00 UTC'"),
    ],
)  # fmt: skip
def test_a_bad_value_names_file_row_and_column(
    run: Callable[..., Result], project: Project, column: str, value: str, problem: str
) -> None:
    path = gcp_focus_month.write_jsonl(project.root / "focus.json")
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[6])
    row[column] = value
    lines[6] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    project.write_config(source("gcp-focus", f'uri = "{path}"'))
    result = run("ingest")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == f"trainledger: error: {path}, row 7, column {column}: {problem}"
    assert not project.warehouse.exists() or query(project, "SELECT count(*) FROM charges") == [(0,)]
