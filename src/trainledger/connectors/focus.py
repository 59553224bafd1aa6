"""Any FOCUS 1.x Cost and Usage file (CSV, csv.gz or parquet; Azure, OCI, AWS or GCP exports).

Real files bend the spec (the official sample writes nulls as ``NULL`` and timestamps without ``T``/``Z``),
so everything is read as text and cast here, with a clear error for what cannot be cast.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from trainledger.connectors import IngestResult, staging
from trainledger.core import queries
from trainledger.core.config import Config, SourceConfig
from trainledger.core.errors import InputError, SourceError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

RAW_VIEW = "focus_raw"
REQUIRED = ("BilledCost", "BillingCurrency", "BillingPeriodStart", "BillingPeriodEnd", "ChargeCategory")
OPTIONAL = {
    name: "VARCHAR"
    for name in (
        "EffectiveCost",
        "ListCost",
        "ChargeClass",
        "ChargePeriodStart",
        "ChargePeriodEnd",
        "BillingAccountId",
        "SubAccountId",
        "ServiceName",
        "ServiceCategory",
        "ResourceId",
        "ResourceName",
        "ResourceType",
        "RegionId",
        "SkuId",
        "ConsumedQuantity",
        "ConsumedUnit",
        "ProviderName",
        "Tags",
        "CommitmentDiscountId",
        "PricingCategory",
        "x_UsageType",
        "ChargeDescription",
        "InvoiceId",
    )
}
SUFFIXES = (".csv", ".csv.gz", ".parquet")


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(SUFFIXES))
    if not files:
        raise SourceError(f"{root}: no FOCUS files (.csv, .csv.gz, .parquet) found")
    return files


def _fingerprint(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for f in files:
        stat = f.stat()
        digest.update(f"{f}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def scan(con: Connection, files: list[Path]) -> None:
    names = [str(f) for f in files]
    if all(n.endswith(".parquet") for n in names):
        rel = con.read_parquet(
            names, union_by_name=True, filename=True, file_row_number=True, hive_partitioning=False
        )
        staging.create_raw_view(con, f"{RAW_VIEW}_typed", rel)
        tags_type = staging.view_columns(con, f"{RAW_VIEW}_typed").get("Tags", "")
        # AWS writes Tags as a parquet map; charges keep tags as a JSON object.
        select = "* REPLACE (CAST(to_json(Tags) AS VARCHAR) AS Tags)" if tags_type.startswith("MAP") else "*"
        con.execute(f"CREATE OR REPLACE TEMP VIEW {RAW_VIEW} AS SELECT {select} FROM {RAW_VIEW}_typed")
        return
    if any(n.endswith(".parquet") for n in names):
        raise InputError(f"{files[0].parent}: mixes parquet and CSV FOCUS files; keep one format per source")
    for f in files:
        if f.stat().st_size == 0:
            raise InputError(f"{f}: file is empty; expected a FOCUS CSV with a header line")
    try:
        rel = con.read_csv(
            names,
            all_varchar=True,
            header=True,
            union_by_name=True,
            filename=True,
            null_padding=False,
            na_values=["NULL", ""],
        )
        staging.create_raw_view(con, f"{RAW_VIEW}_text", rel)
    except Exception as exc:  # duckdb raises several error types for unreadable CSV/gzip
        raise staging.unreadable(str(files[0]), exc, str(files[0])) from None
    staging.number_rows(con, f"{RAW_VIEW}_text", RAW_VIEW)


def ingest(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    if not source.uri:
        raise SourceError(f"source {source.name!r}: `uri` is required for kind {source.kind}")
    if "://" in source.uri:
        raise SourceError(f"source {source.name!r}: kind focus reads local files; use aws-focus for s3://")
    root = Path(config.resolve(source.uri))
    if not root.exists():
        raise SourceError(f"source {source.name!r}: {root} does not exist")
    files = _files(root)
    return load_files(con, source.name, files, _fingerprint(files), period, reporter)


def load_files(
    con: Connection,
    source: str,
    files: list[Path],
    version: str,
    period: str | None,
    reporter: Reporter,
    names: dict[str, str] | None = None,
) -> list[IngestResult]:
    """Stage FOCUS files and replace each period they hold (only ``period`` when given)."""
    reporter.step(f"{source}: reading {len(files)} FOCUS file(s)")
    scan(con, files)
    staging.show_files_as(con, RAW_VIEW, names)
    shown = [names.get(str(f), str(f)) if names else str(f) for f in files]
    where = shown[0] if len(shown) == 1 else str(Path(shown[0]).parent)
    csv_files = [(f, s) for f, s in zip(files, shown, strict=True) if not f.name.endswith(".parquet")]
    staging.add_missing_columns(con, RAW_VIEW, OPTIONAL, REQUIRED, where, "FOCUS", csv_files)
    staging.first_problem(con, "ingest/validate_focus", {})
    con.execute(
        "CREATE OR REPLACE TEMP TABLE staged_charges AS " + queries.load("ingest/normalize_focus"),
        {"source": source},
    )
    periods = [
        r[0] for r in con.execute("SELECT DISTINCT billing_period FROM staged_charges ORDER BY 1").fetchall()
    ]
    results = []
    for billing_period in periods:
        if period is not None and billing_period != period:
            continue
        if staging.known_version(con, source, billing_period) == version:
            results.append(IngestResult(source, billing_period, 0, skipped=True, version=version))
            continue
        results.append(
            staging.replace_period(
                con,
                source=source,
                period=billing_period,
                staged="staged_charges",
                version=version,
                files=shown,
            )
        )
    return results
