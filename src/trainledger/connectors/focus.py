"""Any FOCUS 1.x Cost and Usage file (CSV, csv.gz or parquet; Azure, OCI, AWS or GCP exports).

Real files bend the spec (the official sample writes nulls as ``NULL`` and timestamps without ``T``/``Z``),
so everything is read as text and cast here, with a clear error for what cannot be cast.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from trainledger.connectors import periods, sql, staging
from trainledger.connectors.contract import Delivery, Staged
from trainledger.connectors.locations import LocalFiles, local_path, required_uri
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
Options = LocalFiles


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
        staging.read_parquet(con, f"{RAW_VIEW}_typed", files)
        tags_type = staging.view_columns(con, f"{RAW_VIEW}_typed").get("Tags", "")
        # AWS writes Tags as a parquet map; charges keep tags as a JSON object.
        select = "* REPLACE (CAST(to_json(Tags) AS VARCHAR) AS Tags)" if tags_type.startswith("MAP") else "*"
        staging.derive_view(con, RAW_VIEW, f"{RAW_VIEW}_typed", sql.Fragment(select))
        return
    if any(n.endswith(".parquet") for n in names):
        raise InputError(f"{files[0].parent}: mixes parquet and CSV FOCUS files; keep one format per source")
    for f in files:
        if f.stat().st_size == 0:
            raise InputError(f"{f}: file is empty; expected a FOCUS CSV with a header line")
    staging.read_csv(
        con, f"{RAW_VIEW}_text", files, union_by_name=True, null_padding=False, na_values=["NULL", ""]
    )
    staging.number_rows(con, f"{RAW_VIEW}_text", RAW_VIEW)


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    """One delivery: every FOCUS file under ``uri``, whose rows name their periods."""
    uri = required_uri(source, source.options_as(LocalFiles).uri)
    root = local_path(source, config, uri, remote="kind focus reads local files; use aws-focus for s3://")
    files = _files(root)
    return [Delivery(None, _fingerprint(files), files)]


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    return stage_files(con, source.name, delivery.ref, reporter)


def stage_files(
    con: Connection, source: str, files: list[Path], reporter: Reporter, names: dict[str, str] | None = None
) -> Staged:
    """Stage FOCUS files (the periods their rows name) in ``staged_charges``."""
    reporter.step(f"{source}: reading {len(files)} FOCUS file(s)")
    scan(con, files)
    staging.show_files_as(con, RAW_VIEW, names)
    shown = [names.get(str(f), str(f)) if names else str(f) for f in files]
    where = shown[0] if len(shown) == 1 else str(Path(shown[0]).parent)
    csv_files = [(f, s) for f, s in zip(files, shown, strict=True) if not f.name.endswith(".parquet")]
    staging.add_missing_columns(con, RAW_VIEW, OPTIONAL, REQUIRED, where, "FOCUS", csv_files)
    staging.first_problem(con, "ingest/validate_focus", {})
    periods.stage_table(con, "ingest/normalize_focus", {"source": source})
    return Staged(shown)
