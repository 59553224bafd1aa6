"""Loading Google's append-only export tables (gcp-billing, gcp-focus): their keys, and the pull that
appends the rows not yet present and moves the watermark.

The export is append-only: late usage and corrections arrive for days as new rows, each with a growing
export time, and a correction negates and restates on the invoice month in which it is issued. So a pull
reads the rows exported since the source's watermark minus ``overlap_days``, gives every row an identity (a
hash of its whole content, the export time included: the export has no line item id) and inserts only the
rows not already present. Nothing is ever replaced: a restatement is new rows, and an invoice month's total
is the sum of all its rows, as on Google's invoice. ``--period`` re-reads one invoice month in full (same
de-duplication), without moving the watermark. What rounding the appended rows' money to 12 places took
away is recorded per invoice month (:mod:`rounding`), over the rows appended, never those read again.

Routes: ``table`` (:mod:`gcp_bigquery`) or ``uri``, a file, a folder or ``gs://`` (:mod:`gcp_export_files`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from trainledger.connectors import IngestResult, bill_loader, gcp_api, rounding, sql_slots, staging
from trainledger.connectors.bill_storage import BillFile
from trainledger.connectors.contract import Staged
from trainledger.connectors.gcp_bigquery import read_bigquery
from trainledger.connectors.gcp_export_files import bucket_files, export_files, read_files
from trainledger.connectors.gcp_flat import Export, create_flat_view
from trainledger.connectors.source_files import local_path
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import SourceError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection, on_spark

NEW = "gcp_new_charges"
MONEY_VIEW = "gcp_new_money"  # the appended rows' money as written (ingest/gcp_*_money.sql)
WATERMARK_PREFIX = "export_time<="
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Options(gcp_api.GcpOptions):
    """Exactly one of ``table`` (BigQuery) or ``uri`` (exported files: a file, a folder, gs://)."""

    table: str | None = None
    uri: str | None = None
    project: str | None = None  # runs the query (default: the table's project)
    cache_dir: str | None = None
    overlap_days: int = 3


def watermark(con: Connection, source: str) -> datetime | None:
    """The export time up to which every row of the source is in the warehouse (None: never pulled)."""
    row = sql_slots.run_filled(
        con, "ingest/gcp_watermark", {"source": source, "prefix": WATERMARK_PREFIX}
    ).fetchone()
    if not row or row[0] is None:
        return None
    return datetime.fromisoformat(row[0][len(WATERMARK_PREFIX) :])


def _month(period: str | None) -> str | None:
    return period.replace("-", "") if period else None


def pull(
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
    if options.table and on_spark(con):  # BigQuery's rows come through the driver (gcp_bigquery)
        raise SourceError(
            f"source {source.name!r}: kind {export.kind} with `table` (BigQuery) is not read by Spark; "
            'export the table as files and give their folder as `uri`, or use [warehouse] engine = "duckdb"'
        )
    known = watermark(con, source.name)
    if period is not None or known is None:
        since = EPOCH
    else:
        since = known.replace(tzinfo=UTC) - timedelta(days=options.overlap_days)
    month = _month(period)
    if options.table:
        origin = read_bigquery(con, source, options.table, options.project, since, month, reporter, export)
        where, files = f"BigQuery table {options.table}", [origin]
    else:
        assert options.uri is not None
        paths: list[BillFile]
        if options.uri.startswith("gs://"):  # on Spark read in place, else mirrored into the cache first
            paths = bucket_files(
                source,
                config,
                options.uri,
                options.project,
                options.cache_dir,
                reporter,
                in_place=on_spark(con) is not None,
            )
            where = options.uri
        else:
            remote = f"uri {options.uri!r}: expected a local path or gs://"
            root = local_path(source, config, options.uri, remote=remote)
            paths = list(export_files(root))
            where = str(paths[0]) if len(paths) == 1 else str(root)
        reporter.step(f"{source.name}: reading {len(paths)} export file(s)")
        read_files(con, paths)
        files = [str(p) for p in paths]
    create_flat_view(con, where, export)
    staging.first_problem(con, export.validate, {})
    params = {"source": source.name, "since": since.astimezone(UTC).replace(tzinfo=None), "month": month}
    bill_loader.stage_table(con, export.normalize, params)
    return _append(con, source.name, files, export, reporter, full_pull=period is None, known=known)


def _append(
    con: Connection,
    source: str,
    files: list[str],
    export: Export,
    reporter: Reporter,
    *,
    full_pull: bool,
    known: datetime | None,
) -> list[IngestResult]:
    """Insert the staged rows that are new; record each touched period's totals, the rounding residue of
    the rows appended, and the watermark."""
    sql_slots.run_filled(con, "ingest/gcp_new_charges")
    new = dict(sql_slots.run_filled(con, "ingest/gcp_new_per_period").fetchall())
    names = [f for (f,) in sql_slots.run_filled(con, "ingest/gcp_new_files").fetchall()]
    bill_loader.insert_charges(con, source, names, sql_slots.ident(NEW), {"period": None})
    sql_slots.run_filled(con, export.money)
    residues = rounding.residues(
        con,
        rounding.MoneyColumns(MONEY_VIEW, "billing_period_start", "billing_currency", export.money_columns),
    )
    staged = bill_loader.staged_periods(con, Staged(files))
    latest = (sql_slots.run_filled(con, "ingest/gcp_latest_export").fetchone() or (None,))[0]
    if (
        latest is not None and latest.tzinfo is not None
    ):  # Spark's TIMESTAMP is an instant: as DuckDB's, in UTC
        latest = latest.astimezone(UTC).replace(tzinfo=None)
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
        result = IngestResult(source, period, added, total, skipped=added == 0, version=version, files=files)
        result.residue = residues.get(period, {})
        rounding.warn_large(reporter, source, period, result.residue)
        results.append(result)
    return results
