"""gcp-billing: the generated November export through BigQuery (local REST fake), files and a GCS emulator.

The invoice total is computed here from the generated rows, independently of the connector: the sum of
each FLOAT's decimal text, cost plus credits, over invoice month 202611.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

import generate_gcp
from conftest import Project
from gcp_fakes import BigQueryFake, Table, _timestamp_param, storage_emulator
from trainledger.attribution.categories import Categorizer
from trainledger.core import config as config_module
from trainledger.core.config import Config
from trainledger.core.config_spend import CategoriesConfig
from trainledger.core.errors import InputError, SourceError
from trainledger.core.reporter import Silent
from trainledger.pipeline import jobs

TABLE = generate_gcp.TABLE
NOVEMBER_NET = Decimal("14691.21")  # cost + credits of invoice month 202611: whole cents (rounding line)
NOVEMBER_BILLED = Decimal("15917.830672")  # cost alone


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return generate_gcp.billing_rows()


@pytest.fixture(scope="module")
def export_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gcp-exports")
    generate_gcp.main(["--out", str(root)])
    return root / "gcp" / "billing"


def invoice_total(rows: list[dict[str, Any]], month: str, *, net: bool = True) -> Decimal:
    """Independent of trainledger: each double's shortest decimal text, summed exactly."""
    total = Decimal(0)
    for row in rows:
        if row["invoice"]["month"] == month:
            total += Decimal(repr(row["cost"]))
            if net:
                total += sum((Decimal(repr(c["amount"])) for c in row["credits"]), Decimal(0))
    return total


def make_config(tmp_path: Path, source: str) -> Config:
    text = f'[warehouse]\npath = "{tmp_path / "ledger.duckdb"}"\n\n[[sources]]\nname = "gcp"\nkind = "gcp-billing"\n'
    return config_module.parse(text + source, "trainledger.toml", tmp_path)


def pull(config: Config, period: str | None = None) -> dict[str | None, int]:
    """New rows per billing period from one `ingest`."""
    summary = jobs.ingest(config, Silent(), None, period)
    return {r.period: r.rows for r in summary.ingested}


def query(config: Config, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(config.warehouse_path()), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_fixture_month_adds_up_to_whole_cents(rows: list[dict[str, Any]]) -> None:
    assert invoice_total(rows, "202611") == NOVEMBER_NET
    assert invoice_total(rows, "202611", net=False) == NOVEMBER_BILLED
    assert [len(batch) for batch in generate_gcp.export_batches(rows)] == [313, 87]


# ---------------------------------------------------------------------------------------------------------
# BigQuery
# ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def bigquery(rows: list[dict[str, Any]]) -> Iterator[tuple[BigQueryFake, Table]]:
    """The export table as it stood after the first append; tests append the second."""
    first, _ = generate_gcp.export_batches(rows)
    table = Table(generate_gcp.SCHEMA, list(first))
    with BigQueryFake({TABLE: table}, page_size=100) as fake:
        yield fake, table


def bq_config(tmp_path: Path, fake: BigQueryFake, extra: str = "") -> Config:
    return make_config(tmp_path, f'table = "{TABLE}"\napi_endpoint = "{fake.url}"\n{extra}')


def query_params(fake: BigQueryFake) -> list[dict[str, Any]]:
    return [
        {p["name"]: p["parameterValue"].get("value") for p in r.body["queryParameters"]}
        for r in fake.requests
        if r.path.endswith("/queries") and r.body
    ]


def test_bigquery_pulls_land_every_row_exactly_once(
    tmp_path: Path, bigquery: tuple[BigQueryFake, Table], rows: list[dict[str, Any]]
) -> None:
    fake, table = bigquery
    config = bq_config(tmp_path, fake)

    assert pull(config) == {"2026-11": 313}
    table.rows = list(rows)  # the second export lands
    assert pull(config) == {"2026-11": 86, "2026-12": 1}
    assert pull(config) == {"2026-11": 0, "2026-12": 0}

    first, second, third = query_params(fake)
    assert _timestamp_param(first["since"]).year == 1970
    assert _timestamp_param(second["since"]) == generate_gcp.EXPORT_1 - timedelta(days=3)
    assert _timestamp_param(third["since"]) == generate_gcp.EXPORT_2 - timedelta(days=3)
    assert first["invoice_month"] is None
    # The first pull read 313 rows in four pages: jobs.query, then getQueryResults with page tokens.
    pages = [r for r in fake.requests if "/queries/" in r.path and r.query.get("pageToken")]
    assert len(pages) >= 3
    assert query(
        config, "SELECT billing_period, count(*), sum(effective_cost) FROM charges GROUP BY 1 ORDER BY 1"
    ) == [
        ("2026-11", 399, NOVEMBER_NET),
        ("2026-12", 1, Decimal("3.090533")),
    ]


def test_overlap_and_period_rereads_never_double_a_row(
    tmp_path: Path, bigquery: tuple[BigQueryFake, Table], rows: list[dict[str, Any]]
) -> None:
    fake, table = bigquery
    table.rows = list(rows)
    assert pull(bq_config(tmp_path, fake)) == {"2026-11": 399, "2026-12": 1}

    wide = bq_config(tmp_path, fake, "overlap_days = 60")
    assert pull(wide) == {"2026-11": 0, "2026-12": 0}
    assert pull(wide, "2026-11") == {"2026-11": 0}
    assert query_params(fake)[-1]["invoice_month"] == "202611"

    ((count, billed, net),) = query(
        wide,
        "SELECT count(*), sum(billed_cost), sum(effective_cost) FROM charges WHERE billing_period = '2026-11'",
    )
    # Credits stay on their rows: BilledCost is what the invoice charges, and ties to it.
    assert (count, billed, net) == (399, invoice_total(rows, "202611"), invoice_total(rows, "202611"))
    assert net == NOVEMBER_NET
    # The watermark moved with full pulls only, and is kept per invoice month in ingest_state.
    assert query(wide, "SELECT DISTINCT version FROM ingest_state") == [
        ("export_time<=2026-12-02T06:41:07.654321",)
    ]


def test_a_period_reread_before_any_full_pull_sets_no_watermark(
    tmp_path: Path, bigquery: tuple[BigQueryFake, Table], rows: list[dict[str, Any]]
) -> None:
    fake, table = bigquery
    table.rows = list(rows)
    config = bq_config(tmp_path, fake)
    assert pull(config, "2026-12") == {"2026-12": 1}
    assert query(config, "SELECT billing_period, version FROM ingest_state") == [("2026-12", "month-read")]
    assert pull(config) == {"2026-11": 399, "2026-12": 0}


def test_bigquery_permission_denied_is_one_line(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    table = Table(generate_gcp.SCHEMA, rows)
    with BigQueryFake({TABLE: table}, denied={TABLE}) as fake, pytest.raises(SourceError) as err:
        pull(bq_config(tmp_path, fake))
    assert str(err.value) == (
        f"source 'gcp': querying BigQuery table {TABLE}: permission denied (403: Access Denied: Table "
        "ml-billing:billing_export.gcp_billing_export_resource_v1_01A2B3_C4D5E6_F7A8B9: User does not have "
        "permission to query table ml-billing:billing_export.gcp_billing_export_resource_v1_01A2B3_C4D5E6_F7A8B9, "
        "or perhaps it does not exist.); the caller needs roles/bigquery.dataViewer on the export dataset and "
        "roles/bigquery.jobUser on project 'ml-billing'"
    )


def test_missing_table_is_one_line(tmp_path: Path) -> None:
    with BigQueryFake({}) as fake, pytest.raises(SourceError) as err:
        pull(bq_config(tmp_path, fake))
    assert str(err.value) == (
        f"source 'gcp': querying BigQuery table {TABLE}: not found (404: Not found: Table "
        "ml-billing:billing_export.gcp_billing_export_resource_v1_01A2B3_C4D5E6_F7A8B9 was not found in "
        "location US); check `table`: the export table is gcp_billing_export_v1_<ACCOUNT> (standard) or "
        "gcp_billing_export_resource_v1_<ACCOUNT> (detailed)"
    )


def test_a_table_that_is_not_a_billing_export_is_refused(tmp_path: Path) -> None:
    schema = [
        {"name": "export_time", "type": "TIMESTAMP", "mode": "NULLABLE"},
        {"name": "cost", "type": "FLOAT", "mode": "NULLABLE"},
        {"name": "currency", "type": "STRING", "mode": "NULLABLE"},
    ]
    row = {"export_time": generate_gcp.EXPORT_1, "cost": 1.5, "currency": "USD"}
    with BigQueryFake({TABLE: Table(schema, [row])}) as fake, pytest.raises(InputError) as err:
        pull(bq_config(tmp_path, fake))
    assert str(err.value) == (
        f"BigQuery table {TABLE}: not a Cloud Billing export: missing column(s) billing_account_id, "
        "service.description, sku.id, usage_start_time, usage_end_time ..."
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            'table = "billing_export.gcp_billing_export_v1_X"',
            "source 'gcp': table = 'billing_export.gcp_billing_export_v1_X' is not a BigQuery table id; "
            'expected "project.dataset.table", e.g. "my-project.billing.gcp_billing_export_resource_v1_'
            '0A1B2C_3D4E5F_6A7B8C"',
        ),
        (
            'table = "p-123456.d.t`; DROP TABLE x; --"',
            "source 'gcp': table = 'p-123456.d.t`; DROP TABLE x; --' is not a BigQuery table id; "
            'expected "project.dataset.table", e.g. "my-project.billing.gcp_billing_export_resource_v1_'
            '0A1B2C_3D4E5F_6A7B8C"',
        ),
        (
            "",
            "source 'gcp': kind gcp-billing needs exactly one of `table` (BigQuery) or `uri` (exported "
            "parquet/JSON files, a folder or gs://bucket/prefix)",
        ),
    ],
)
def test_bad_source_settings_are_one_line(tmp_path: Path, source: str, message: str) -> None:
    with pytest.raises(SourceError) as err:
        pull(make_config(tmp_path, source))
    assert str(err.value) == message


# ---------------------------------------------------------------------------------------------------------
# Mapping to charges
# ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory, export_files: Path) -> Config:
    """The whole month ingested once from the parquet files (read-only for tests)."""
    config = make_config(tmp_path_factory.mktemp("loaded"), f'uri = "{export_files / "parquet"}"')
    pull(config)
    return config


def test_cost_types_and_adjustments_map_to_focus_categories(loaded: Config) -> None:
    assert query(
        loaded,
        "SELECT line_item_type, charge_category, charge_class, count(*), sum(billed_cost), sum(effective_cost) "
        "FROM charges WHERE billing_period = '2026-11' GROUP BY ALL ORDER BY ALL",
    ) == [
        ("adjustment:SLA_VIOLATION", "Credit", None, 1, Decimal("-50"), Decimal("-50")),
        ("regular", "Purchase", None, 30, Decimal("10646.56512"), Decimal("10646.56512")),
        # cost 4229.880851 less 1126.620672 committed use and 100 promotional credits
        ("regular", "Usage", None, 361, Decimal("3003.260179"), Decimal("3003.260179")),
        # a correction of October usage issued on November's invoice (FOCUS: ChargeClass Correction) ...
        ("regular:PRICE_CORRECTION", "Usage", "Correction", 1, Decimal("-1.234567"), Decimal("-1.234567")),
        # ... and an in-month one: negate 11-03 egress and restate it at 80 %, both new rows
        ("regular:USAGE_CORRECTION", "Usage", None, 2, Decimal("-30.84"), Decimal("-30.84")),
        ("rounding_error", "Adjustment", None, 1, Decimal("-0.000732"), Decimal("-0.000732")),
        ("tax", "Tax", None, 3, Decimal("1123.46"), Decimal("1123.46")),
    ]


def test_credits_stay_visible_per_type_and_net_into_billed_and_effective_cost(
    loaded: Config, rows: list[dict[str, Any]]
) -> None:
    """Each row's BilledCost is its cost plus its credits (the export's own numbers, summed here)."""
    nets = sorted(
        Decimal(repr(r["cost"])) + sum((Decimal(repr(c["amount"])) for c in r["credits"]), Decimal(0))
        for r in rows
        if r["credits"]
    )
    credits = query(loaded, "SELECT credits, billed_cost, effective_cost FROM charges WHERE credits <> '[]'")
    assert sorted(billed for _, billed, _ in credits) == nets
    by_type: dict[str, Decimal] = {}
    for text, billed, effective in credits:
        listed = json.loads(text)
        assert effective == billed
        for credit in listed:
            by_type[credit["type"]] = by_type.get(credit["type"], Decimal(0)) + Decimal(credit["amount"])
    # The A100s are fully covered by their commitment (48 h x 8 GPUs); the research credit caps at 100.
    assert by_type == {"COMMITTED_USAGE_DISCOUNT": Decimal("-1126.620672"), "PROMOTION": Decimal("-100")}
    assert query(
        loaded,
        "SELECT DISTINCT pricing_category, commitment_id FROM charges WHERE usage_type LIKE 'Commitment%' "
        "OR credits LIKE '%COMMITTED_USAGE_DISCOUNT%' ORDER BY ALL",
    ) == [("Committed", "8123456789012345001"), ("Committed", None)]


def test_project_labels_are_kept_apart_from_the_resources_and_system_labels_are_kept(loaded: Config) -> None:
    tags, resource_id, resource_type, period_start, period_end = query(
        loaded,
        "SELECT tags, resource_id, resource_type, billing_period_start, billing_period_end FROM charges "
        "WHERE usage_type = 'Nvidia H100 80GB GPU running in Americas' LIMIT 1",
    )[0]
    assert json.loads(tags) == {
        "compute.googleapis.com/cores": "208",
        "compute.googleapis.com/machine_spec": "a3-highgpu-8g",
        "compute.googleapis.com/memory": "1916928",
        "method": "sft",
        "phase": "train",  # the resource's label, which wins: the project says phase=data
        "project": "qwen-coder",
        "project-label:phase": "data",
        "project-label:project": "qwen-coder",
        "project-label:team": "post-training",
    }
    assert (
        resource_id
        == "//compute.googleapis.com/projects/412345678901/zones/us-central1-a/instances/5123456789012345601"
    )
    assert resource_type == "instance"
    # November's invoice runs from Pacific midnight to Pacific midnight (PDT, then PST after Nov 1's switch).
    assert (str(period_start), str(period_end)) == ("2026-11-01 07:00:00", "2026-12-01 08:00:00")


def test_gpu_disk_storage_and_egress_land_in_their_cost_categories(tmp_path: Path, loaded: Config) -> None:
    shutil.copy(loaded.warehouse_path(), tmp_path / "ledger.duckdb")
    config = config_module.parse(f'[warehouse]\npath = "{tmp_path / "ledger.duckdb"}"\n', "t.toml", tmp_path)
    jobs.attribute(config, Silent())
    assert query(
        config,
        "SELECT c.usage_type, k.cost_category FROM charges c JOIN charge_categories k "
        "ON k.service_name = c.service_name AND k.usage_type = c.usage_type AND k.provider = c.provider "
        "AND k.charge_category = c.charge_category WHERE c.usage_type IN ('Nvidia H100 80GB GPU running in Americas', "
        "'A3 Instance Core running in Americas', 'Balanced PD Capacity', 'Standard Storage US Multi-region', "
        "'Network Internet Egress from Americas to Americas') GROUP BY ALL ORDER BY 1",
    ) == [
        ("A3 Instance Core running in Americas", "compute"),
        ("Balanced PD Capacity", "storage"),
        ("Network Internet Egress from Americas to Americas", "network"),
        ("Nvidia H100 80GB GPU running in Americas", "compute"),
        ("Standard Storage US Multi-region", "storage"),
    ]


# ---------------------------------------------------------------------------------------------------------
# Files: parquet and JSON Lines, local and gs://
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_exported_files_give_the_same_charges_as_each_other(
    tmp_path: Path, export_files: Path, loaded: Config, fmt: str
) -> None:
    config = make_config(tmp_path, f'uri = "{export_files / fmt}"')
    assert pull(config) == {"2026-11": 399, "2026-12": 1}
    ids = query(config, "SELECT row_identity, billed_cost, effective_cost, tags FROM charges ORDER BY 1")
    assert ids == query(
        loaded, "SELECT row_identity, billed_cost, effective_cost, tags FROM charges ORDER BY 1"
    )


def test_an_overlapping_re_export_never_doubles_a_row(tmp_path: Path, export_files: Path) -> None:
    folder = tmp_path / "exports"
    shutil.copytree(export_files / "parquet", folder)
    # The user exported the first append twice, the second time into another file.
    shutil.copy(folder / "export-1-000000000000.parquet", folder / "export-1b-000000000000.parquet")
    config = make_config(tmp_path, f'uri = "{folder}"')
    assert pull(config) == {"2026-11": 399, "2026-12": 1}
    assert query(config, "SELECT sum(effective_cost) FROM charges WHERE billing_period = '2026-11'") == [
        (NOVEMBER_NET,)
    ]


def test_a_bad_cost_names_file_row_and_column(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    lines = [generate_gcp.json_line(r) for r in rows[:5]]
    broken = json.loads(lines[2])
    broken["cost"] = "twelve"
    lines[2] = json.dumps(broken)
    path = tmp_path / "export.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        pull(make_config(tmp_path, f'uri = "{path}"'))
    assert str(err.value) == f"{path}, row 3, column cost: expected a finite number, got 'twelve'"


def test_a_failed_pull_changes_nothing(
    tmp_path: Path, export_files: Path, rows: list[dict[str, Any]]
) -> None:
    config = make_config(tmp_path, f'uri = "{export_files / "parquet"}"')
    pull(config)
    before = query(config, "SELECT count(*), sum(billed_cost) FROM charges")
    bad = tmp_path / "bad"
    bad.mkdir()
    line = json.loads(generate_gcp.json_line(rows[0]))
    line["export_time"] = "yesterday"
    (bad / "export.json").write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(
        InputError, match="column export_time: expected a timestamp in 2000-2099, got 'yesterday'"
    ):
        pull(make_config(tmp_path, f'uri = "{bad}"'))
    assert query(config, "SELECT count(*), sum(billed_cost) FROM charges") == before


def test_gs_exports_are_read_through_the_storage_api(
    tmp_path: Path, export_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import google.cloud.storage as storage

    with storage_emulator() as host:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", host)
        bucket = storage.Client(project="ml-billing").create_bucket("ml-billing-exports")
        for path in sorted((export_files / "jsonl").iterdir()):
            bucket.blob(f"gcp/november/{path.name}").upload_from_filename(str(path))
        bucket.blob("gcp/november/README.txt").upload_from_string("not an export")
        config = make_config(tmp_path, 'uri = "gs://ml-billing-exports/gcp/november"\ncache_dir = "cache"')
        reporter = Silent()
        summary = jobs.ingest(config, reporter)
        again = Silent()
        jobs.ingest(config, again)
    assert {r.period: r.rows for r in summary.ingested} == {"2026-11": 399, "2026-12": 1}
    cached = sorted(
        p.name for p in (tmp_path / "cache" / "ml-billing-exports" / "gcp" / "november").iterdir()
    )
    assert cached == ["export-1-000000000000.json", "export-2-000000000000.json"]
    downloads = [m for kind, m in again.messages if "downloaded" in m]
    assert downloads == []  # unchanged objects are not fetched again


# ---------------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------------


def test_cli_ingest_reports_new_rows_then_unchanged(run, project: Project, export_files: Path) -> None:
    project.write_config(
        f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{export_files / "jsonl"}"\n'
    )
    first = run("ingest")
    assert first.exit_code == 0, first.stderr
    assert (
        first.stdout
        # 14,691.21 and 3.090533 USD (cost + credits), shown to the cent as `report` shows money
        == "gcp\t2026-11\t399 rows, billed 14,691.21 USD\ngcp\t2026-12\t1 rows, billed 3.09 USD\n"
    )
    second = run("ingest")
    assert second.stdout == "gcp\t2026-11\tunchanged\ngcp\t2026-12\tunchanged\n"


def test_cli_missing_permission_is_one_line_on_stderr(
    run, project: Project, rows: list[dict[str, Any]]
) -> None:
    with BigQueryFake({TABLE: Table(generate_gcp.SCHEMA, rows)}, denied={TABLE}) as fake:
        project.write_config(
            f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\ntable = "{TABLE}"\napi_endpoint = "{fake.url}"\n'
        )
        result = run("ingest")
    assert result.exit_code == 1
    assert result.stdout == ""
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("trainledger: error: source 'gcp': querying BigQuery table ")
    assert "permission denied (403: Access Denied: Table ml-billing:billing_export." in error
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("service", "sku", "category"),
    [
        ("Compute Engine", "Nvidia H100 80GB GPU running in Americas", "compute"),
        ("Compute Engine", "A2 Instance Core running in Americas", "compute"),
        ("Compute Engine", "Balanced PD Capacity", "storage"),
        ("Compute Engine", "Hyperdisk Balanced Capacity in Iowa", "storage"),
        ("Compute Engine", "Storage PD Snapshot in US", "storage"),
        ("Compute Engine", "Storage Image", "storage"),
        ("Compute Engine", "SSD backed Local Storage", "storage"),
        ("Compute Engine", "Network Internet Egress from Americas to Americas", "network"),
        ("Compute Engine", "Static Ip Charge", "network"),
        ("Cloud Storage", "Standard Storage US Multi-region", "storage"),
        ("Cloud Storage", "Download Worldwide Destinations (excluding Asia & Australia)", "network"),
        ("Networking", "Network Internet Data Transfer Out from Americas to Americas", "network"),
        ("Vertex AI", "Custom Training: Nvidia H100 80GB GPU running in Americas", "compute"),
    ],
)
def test_gcp_skus_have_a_cost_category(service: str, sku: str, category: str) -> None:
    assert Categorizer(CategoriesConfig()).categorize(service, sku) == (category, True)


def test_a_standard_export_without_resource_or_price_columns_ingests(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    """gcp_billing_export_v1_*: no `resource`; exports from before mid-2023 also lack price and cost_at_list."""
    dropped = ("resource", "price", "cost_at_list", "subscription", "tags", "transaction_type", "seller_name")
    table = generate_gcp.rows_to_table(rows).drop_columns(list(dropped))
    path = tmp_path / "standard.parquet"
    pq.write_table(table, path)
    config = make_config(tmp_path, f'uri = "{path}"')
    assert pull(config) == {"2026-11": 399, "2026-12": 1}
    assert query(
        config,
        "SELECT count(resource_id), sum(billed_cost), sum(effective_cost), sum(list_cost) FROM charges "
        "WHERE billing_period = '2026-11'",
    ) == [(0, NOVEMBER_NET, NOVEMBER_NET, NOVEMBER_BILLED)]  # without cost_at_list, ListCost is cost


def test_row_identity_is_pinned(loaded: Config) -> None:
    """A changed identity recipe would insert already-loaded rows again on the next overlap: pin it."""
    assert query(
        loaded,
        "SELECT row_identity FROM charges WHERE usage_type = 'Nvidia H100 80GB GPU running in Americas' "
        "ORDER BY charge_period_start LIMIT 1",
    ) == [("8e24cad10b568a9f087af13c59343455#1",)]
