"""Cloud Billing export (standard or detailed), from BigQuery or from the same rows exported as files.

The export is append-only: late usage and corrections arrive for days as new rows, each with a growing
``export_time``, and a correction negates and restates on the invoice month in which it is issued. So a
pull reads the rows exported since the source's watermark minus ``overlap_days``, gives every row an
identity (a hash of its whole content, export_time included: the export has no line item id) and inserts
only the rows not already present. Nothing is ever replaced: a restatement is new rows, and an invoice
month's total is the sum of all its rows, as on Google's invoice. ``--period`` re-reads one invoice month
in full (same de-duplication), without moving the watermark.

Routes: ``table = "project.dataset.table"`` runs one parameterised query with google-cloud-bigquery;
``uri`` (a file, a folder, or ``gs://bucket/prefix``) reads parquet or JSON Lines as BigQuery exports
them, gs:// objects being copied to a local cache first.
"""

from __future__ import annotations

import gzip
import os
import re
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import duckdb

from trainledger.connectors import IngestResult, bill_loader, gcp_api, sql_slots, staging
from trainledger.connectors.contract import Example, Staged
from trainledger.connectors.gcp_flat import RAW_VIEW, Export, create_flat_view
from trainledger.connectors.source_files import default_cache_dir, files_under, local_path
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import InputError, SourceError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

NEW = "gcp_new_charges"
WATERMARK_PREFIX = "export_time<="

# BigQuery table ids cannot be query parameters, so the name is checked strictly, then backtick-quoted.
TABLE_ID = re.compile(r"([a-z][a-z0-9-]{4,28}[a-z0-9])\.([A-Za-z0-9_]{1,1024})\.([A-Za-z0-9_]{1,1024})")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
PAGE_SIZE = 10_000

# Flat column -> (path in the export, kind). Kinds: text, decimal (exact, from the value's decimal text),
# double, time (UTC). Paths absent from a file become NULL: the schema grew over the years.
FIELDS: dict[str, tuple[str, str]] = {
    "billing_account_id": ("billing_account_id", "text"),
    "service_id": ("service.id", "text"),
    "service_description": ("service.description", "text"),
    "sku_id": ("sku.id", "text"),
    "sku_description": ("sku.description", "text"),
    "usage_start_time": ("usage_start_time", "time"),
    "usage_end_time": ("usage_end_time", "time"),
    "export_time": ("export_time", "time"),
    "project_id": ("project.id", "text"),
    "project_number": ("project.number", "text"),
    "location_location": ("location.location", "text"),
    "location_region": ("location.region", "text"),
    "location_zone": ("location.zone", "text"),
    "resource_name": ("resource.name", "text"),
    "resource_global_name": ("resource.global_name", "text"),
    "cost": ("cost", "decimal"),
    "cost_at_list": ("cost_at_list", "decimal"),
    "currency": ("currency", "text"),
    "currency_conversion_rate": ("currency_conversion_rate", "double"),
    "usage_amount": ("usage.amount", "decimal"),
    "usage_unit": ("usage.unit", "text"),
    "usage_amount_in_pricing_units": ("usage.amount_in_pricing_units", "decimal"),
    "usage_pricing_unit": ("usage.pricing_unit", "text"),
    "price_effective_price": ("price.effective_price", "decimal"),
    "price_unit": ("price.unit", "text"),
    "invoice_month": ("invoice.month", "text"),
    "cost_type": ("cost_type", "text"),
    "adjustment_id": ("adjustment_info.id", "text"),
    "adjustment_description": ("adjustment_info.description", "text"),
    "adjustment_mode": ("adjustment_info.mode", "text"),
    "adjustment_type": ("adjustment_info.type", "text"),
    "subscription_instance_id": ("subscription.instance_id", "text"),
    "transaction_type": ("transaction_type", "text"),
    "seller_name": ("seller_name", "text"),
}
KEY_VALUE = {"key": "text", "value": "text"}
LISTS: dict[str, tuple[str, dict[str, str]]] = {
    "labels": ("labels", KEY_VALUE),
    "project_labels": ("project.labels", KEY_VALUE),
    "system_labels": ("system_labels", KEY_VALUE),
    "credits": (
        "credits",
        {"name": "text", "amount": "decimal", "full_name": "text", "id": "text", "type": "text"},
    ),
}
# Text of these values is kept beside the typed value, for error messages naming what was found.
TEXT_KEPT = ("cost", "usage_start_time", "usage_end_time", "export_time")
REQUIRED = (
    "billing_account_id",
    "service.description",
    "sku.id",
    "usage_start_time",
    "usage_end_time",
    "export_time",
    "cost",
    "currency",
    "credits",
    "invoice.month",
    "cost_type",
)
FILE_SUFFIXES = staging.SUFFIXES["parquet"] + staging.SUFFIXES["json"]


BILLING = Export(
    "gcp-billing",
    "Cloud Billing export",
    FIELDS,
    LISTS,
    REQUIRED,
    TEXT_KEPT,
    "ingest/bigquery_billing_rows",
    "ingest/validate_gcp_billing",
    "ingest/normalize_gcp_billing",
    "gcp_billing_export_v1_<ACCOUNT> (standard) or gcp_billing_export_resource_v1_<ACCOUNT> (detailed)",
    "my-project.billing.gcp_billing_export_resource_v1_0A1B2C_3D4E5F_6A7B8C",
)


# ---------------------------------------------------------------------------------------------------------
# Reading: a BigQuery query, or exported files (local or gs://).
# ---------------------------------------------------------------------------------------------------------


def table_id(source: SourceConfig, export: Export) -> str:
    table = source.options_as(Options).table
    assert table is not None
    if not TABLE_ID.fullmatch(table):
        raise SourceError(
            f"source {source.name!r}: table = {table!r} is not a BigQuery table id; expected "
            f'"project.dataset.table", e.g. "{export.example}"'
        )
    return table


def read_bigquery(
    con: Connection,
    source: SourceConfig,
    since: datetime,
    month: str | None,
    reporter: Reporter,
    export: Export,
) -> str:
    """Run the parameterised query and expose its rows as the raw view; returns the origin label."""
    from google.cloud import bigquery

    table = table_id(source, export)
    project = source.options_as(Options).project or table.split(".", 1)[0]
    config = bigquery.QueryJobConfig(
        query_parameters=[
            bigquery.ScalarQueryParameter("since", "TIMESTAMP", since),
            bigquery.ScalarQueryParameter("invoice_month", "STRING", month),
        ]
    )
    reporter.step(f"{source.name}: querying {table} for rows exported since {since:%Y-%m-%d %H:%M:%S} UTC")
    try:
        client = bigquery.Client(project=project, **gcp_api.client_kwargs(source))

        def query(timeout: float) -> Any:
            rows = client.query_and_wait(
                sql_slots.render(export.bigquery, table=sql_slots.Fragment(f"`{table}`")),
                job_config=config,
                page_size=PAGE_SIZE,
                api_timeout=timeout,
                retry=None,  # type: ignore[arg-type]  # None: no retry of the library's own (bounded does)
                job_retry=None,  # type: ignore[arg-type]
            )
            return rows.to_arrow(create_bqstorage_client=False)

        arrow = gcp_api.bounded(source, query)
    except gcp_api.api_errors() as exc:
        hints = {
            "permission denied": (
                "the caller needs roles/bigquery.dataViewer on the export dataset and "
                f"roles/bigquery.jobUser on project {project!r}"
            ),
            "not found": f"check `table`: the export table is {export.tables}",
        }
        raise gcp_api.source_error(source, exc, f"querying BigQuery table {table}", hints) from None
    import pyarrow as pa

    origin = f"bigquery:{table}"
    arrow = arrow.append_column("filename", pa.array([origin] * arrow.num_rows, pa.string()))
    arrow = arrow.append_column("file_row_number", pa.array(range(arrow.num_rows), pa.int64()))
    # A view over Python memory lives only in this session: registered, not created.
    staging.create_raw_view(con, RAW_VIEW, arrow)
    reporter.detail(f"{source.name}: {arrow.num_rows} row(s) from BigQuery")
    return origin


def _download(source: SourceConfig, config: Config, uri: str, reporter: Reporter) -> list[Path]:
    """Mirror the export files under ``gs://bucket/prefix`` into the cache; unchanged objects are kept.

    An object is unchanged when the cached copy has its size and its update time (set as mtime).
    """
    import google.cloud.storage as storage

    bucket_name, _, prefix = uri[len("gs://") :].partition("/")
    options = source.options_as(Options)
    root = default_cache_dir(source, config, options.cache_dir) / bucket_name
    paths = []
    try:
        client = storage.Client(project=options.project, **gcp_api.client_kwargs(source))
        blobs = gcp_api.bounded(
            source,
            lambda timeout: list(client.list_blobs(bucket_name, prefix=prefix, timeout=timeout, retry=None)),
        )
        for blob in blobs:
            if not blob.name.endswith(FILE_SUFFIXES):
                continue
            local = root / blob.name
            paths.append(local)
            stamp = blob.updated.timestamp() if blob.updated else None
            if local.is_file() and local.stat().st_size == blob.size and local.stat().st_mtime == stamp:
                continue
            local.parent.mkdir(parents=True, exist_ok=True)
            gcp_api.bounded(
                source,
                partial(blob.download_to_filename, str(local), retry=None),
            )
            if stamp is not None:
                os.utime(local, (stamp, stamp))
            reporter.detail(f"{source.name}: downloaded gs://{bucket_name}/{blob.name}")
    except gcp_api.api_errors() as exc:
        hints = {"permission denied": "the caller needs roles/storage.objectViewer on the bucket"}
        raise gcp_api.source_error(source, exc, f"reading {uri}", hints) from None
    if not paths:
        raise SourceError(f"source {source.name!r}: no parquet or JSON export files under {uri}")
    return sorted(paths)


def export_files(root: Path) -> list[Path]:
    return files_under(root, FILE_SUFFIXES, f"Cloud Billing export files ({', '.join(FILE_SUFFIXES)})")


def _not_an_export_file(path: Path) -> str | None:
    """What a file given as an export really is, when its name or first bytes say it is not one."""
    if not path.name.endswith(FILE_SUFFIXES):
        kind = (
            "a CSV file" if path.name.lower().endswith(staging.SUFFIXES["csv"]) else staging.looks_like(path)
        )
        return f"{kind}, not parquet or JSON Lines"
    if path.name.endswith(".parquet"):
        return None
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            start = handle.read(4096).lstrip()
    except (OSError, EOFError):
        return None  # DuckDB's reading names the damage
    if start.startswith("["):
        return "a JSON array, not JSON Lines (one export row per line)"
    if start and not start.startswith("{"):
        return f"not JSON Lines (it starts {start[:20]!r})"
    return None


def read_files(con: Connection, files: list[Path]) -> None:
    """The raw view over parquet or JSON Lines files, as BigQuery's EXPORT DATA / extract writes them."""
    names = [str(f) for f in files]
    for f in files:
        problem = _not_an_export_file(f)
        if problem:
            raise InputError(
                f"{f}: {problem}; expected the export's rows as parquet or JSON Lines ({', '.join(FILE_SUFFIXES)})"
            )
    found = staging.formats(files)
    if "parquet" in found and len(found) > 1:
        raise InputError(
            f"{files[0].parent}: mixes parquet and JSON export files; keep one format per source"
        )
    try:
        if found == {"parquet"}:
            staging.read_parquet(con, RAW_VIEW, files)
            return
        rel = con.read_json(
            names, format="newline_delimited", union_by_name=True, filename=True, sample_size=-1
        )
    except duckdb.Error as exc:
        raise InputError(
            f"{files[0]}: cannot read as a Cloud Billing export: {str(exc).splitlines()[0]}"
        ) from None
    staging.create_raw_view(con, f"{RAW_VIEW}_json", rel)
    staging.number_rows_by_file(con, RAW_VIEW, f"{RAW_VIEW}_json")


# ---------------------------------------------------------------------------------------------------------
# Loading: append the rows not yet present, keep the watermark per invoice month.
# ---------------------------------------------------------------------------------------------------------


def watermark(con: Connection, source: str) -> datetime | None:
    """The export_time up to which every row of the source is in the warehouse (None: never pulled)."""
    row = sql_slots.run_filled(
        con, "ingest/gcp_watermark", {"source": source, "prefix": WATERMARK_PREFIX}
    ).fetchone()
    if not row or row[0] is None:
        return None
    return datetime.fromisoformat(row[0][len(WATERMARK_PREFIX) :])


def _month(period: str | None) -> str | None:
    return period.replace("-", "") if period else None


class Options(gcp_api.GcpOptions):
    """Exactly one of ``table`` (BigQuery) or ``uri`` (exported files: a file, a folder, gs://)."""

    table: str | None = None
    uri: str | None = None
    project: str | None = None  # runs the query (default: the table's project)
    cache_dir: str | None = None
    overlap_days: int = 3


EXAMPLE = Example(
    "gs://my-billing-bucket/billing/",
    "GCP Cloud Billing export: its rows as parquet / JSON Lines, or the BigQuery table",
    ('# table = "my-project.billing.gcp_billing_export_resource_v1_XXXXXX"  # instead of uri',),
)


def pull(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    return pull_export(con, source, config, period, reporter, BILLING)


def pull_export(
    con: Connection,
    source: SourceConfig,
    config: Config,
    period: str | None,
    reporter: Reporter,
    export: Export,
) -> list[IngestResult]:
    """Read an append-only export (BigQuery or files) and append the rows not yet present."""
    options = source.options_as(Options)
    if bool(options.table) == bool(options.uri):
        raise SourceError(
            f"source {source.name!r}: kind {export.kind} needs exactly one of `table` (BigQuery) or `uri` "
            "(exported parquet/JSON files, a folder or gs://bucket/prefix)"
        )
    known = watermark(con, source.name)
    if period is not None or known is None:
        since = EPOCH
    else:
        since = known.replace(tzinfo=UTC) - timedelta(days=options.overlap_days)
    month = _month(period)
    if options.table:
        origin = read_bigquery(con, source, since, month, reporter, export)
        where, files = f"BigQuery table {options.table}", [origin]
    else:
        assert options.uri is not None
        if options.uri.startswith("gs://"):
            paths = _download(source, config, options.uri, reporter)
            where = options.uri
        else:
            remote = f"uri {options.uri!r}: expected a local path or gs://"
            root = local_path(source, config, options.uri, remote=remote)
            paths = export_files(root)
            where = str(paths[0]) if len(paths) == 1 else str(root)
        reporter.step(f"{source.name}: reading {len(paths)} export file(s)")
        read_files(con, paths)
        files = [str(p) for p in paths]
    create_flat_view(con, where, export)
    staging.first_problem(con, export.validate, {})
    params = {"source": source.name, "since": since.astimezone(UTC).replace(tzinfo=None), "month": month}
    bill_loader.stage_table(con, export.normalize, params)
    return _append(con, source.name, files, full_pull=period is None, known=known)


def _append(
    con: Connection, source: str, files: list[str], *, full_pull: bool, known: datetime | None
) -> list[IngestResult]:
    """Insert the staged rows that are new; record each touched period's totals and the watermark."""
    sql_slots.run_filled(con, "ingest/gcp_new_charges")
    new = dict(sql_slots.run_filled(con, "ingest/gcp_new_per_period").fetchall())
    names = [f for (f,) in sql_slots.run_filled(con, "ingest/gcp_new_files").fetchall()]
    bill_loader.insert_charges(con, source, names, sql_slots.ident(NEW), {"period": None})
    staged = bill_loader.staged_periods(con, Staged(files))
    latest = (sql_slots.run_filled(con, "ingest/gcp_latest_export").fetchone() or (None,))[0]
    mark = known
    if full_pull and latest is not None and (known is None or latest > known):
        mark = latest
    version = f"{WATERMARK_PREFIX}{mark.isoformat()}" if mark else "month-read"
    if full_pull and mark is not None:
        sql_slots.run_filled(con, "ingest/gcp_move_watermark", {"version": version, "source": source})
    results = []
    for period in staged:
        _, total = bill_loader.record_state(con, source, period, version, files)
        added = int(new.get(period, 0))
        results.append(
            IngestResult(source, period, added, total, skipped=added == 0, version=version, files=files)
        )
    return results
