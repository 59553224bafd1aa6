"""AWS Data Exports CUR 2.0: manifest-driven, one billing period replaced at a time.

Layout: ``<prefix>/<export>/data/BILLING_PERIOD=YYYY-MM/*.parquet|*.csv.gz`` with the manifest in
``<prefix>/<export>/metadata/BILLING_PERIOD=YYYY-MM/<export>-Manifest.json``, written after the data.
"""

from __future__ import annotations

import json
from pathlib import Path

from trainledger import queries
from trainledger.config import Config, SourceConfig
from trainledger.connectors import IngestResult, staging
from trainledger.errors import InputError, SourceError
from trainledger.reporter import Reporter
from trainledger.warehouse import Connection

RAW_VIEW = "cur2_raw"

REQUIRED = (
    "identity_line_item_id",
    "identity_time_interval",
    "bill_billing_period_start_date",
    "bill_billing_period_end_date",
    "line_item_line_item_type",
    "line_item_unblended_cost",
    "line_item_currency_code",
    "line_item_usage_start_date",
    "line_item_usage_end_date",
)

OPTIONAL = {
    "bill_payer_account_id": "VARCHAR",
    "line_item_usage_account_id": "VARCHAR",
    "line_item_product_code": "VARCHAR",
    "line_item_usage_type": "VARCHAR",
    "line_item_resource_id": "VARCHAR",
    "line_item_usage_amount": "DOUBLE",
    "line_item_operation": "VARCHAR",
    "line_item_availability_zone": "VARCHAR",
    "pricing_public_on_demand_cost": "DOUBLE",
    "pricing_unit": "VARCHAR",
    "pricing_term": "VARCHAR",
    "product": "MAP(VARCHAR, VARCHAR)",
    "product_servicecode": "VARCHAR",
    "product_region_code": "VARCHAR",
    "product_sku": "VARCHAR",
    "product_instance_type": "VARCHAR",
    "product_product_family": "VARCHAR",
    "resource_tags": "MAP(VARCHAR, VARCHAR)",
    "reservation_effective_cost": "DOUBLE",
    "reservation_reservation_a_r_n": "VARCHAR",
    "reservation_unused_amortized_upfront_fee_for_billing_period": "DOUBLE",
    "reservation_unused_recurring_fee": "DOUBLE",
    "savings_plan_savings_plan_a_r_n": "VARCHAR",
    "savings_plan_savings_plan_effective_cost": "DOUBLE",
    "savings_plan_total_commitment_to_date": "DOUBLE",
    "savings_plan_used_commitment": "DOUBLE",
}

MAP_COLUMNS = ("resource_tags", "product", "cost_category", "discount")


def _periods(root: Path) -> list[str]:
    metadata = root / "metadata"
    if not metadata.is_dir():
        if (root / "data").is_dir():
            raise SourceError(f"{root}: no metadata/ folder: the CUR 2.0 manifest is missing")
        raise SourceError(f"{root}: not a CUR 2.0 export folder (expected data/ and metadata/ inside)")
    return sorted(p.name.split("=", 1)[1] for p in metadata.glob("BILLING_PERIOD=*") if p.is_dir())


def _manifest(root: Path, period: str) -> tuple[str, list[Path]]:
    """The period's execution id and data files, as the manifest names them."""
    folder = root / "metadata" / f"BILLING_PERIOD={period}"
    manifests = sorted(folder.glob("*Manifest.json"))
    if not manifests:
        raise SourceError(f"{folder}: no *-Manifest.json: the export for {period} is incomplete or missing")
    path = manifests[-1]
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        listed = manifest["dataFiles"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a Data Exports manifest ({exc})") from None
    files = []
    for uri in listed:
        marker = f"/data/BILLING_PERIOD={period}/"
        if marker not in uri:
            raise InputError(f"{path}: data file {uri!r} is outside data/BILLING_PERIOD={period}/")
        local = root / "data" / f"BILLING_PERIOD={period}" / uri.split(marker, 1)[1]
        if not local.is_file():
            raise SourceError(f"{path}: names data file {uri!r}, which does not exist at {local}")
        files.append(local)
    if not files:
        raise InputError(f"{path}: the manifest lists no data files")
    stats = ",".join(f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files)
    return f"{manifest.get('executionId', '')}|{stats}", files


def scan(con: Connection, files: list[Path]) -> None:
    """Create the raw view over the period's files, parquet or csv.gz, with maps as maps."""
    names = [str(f) for f in files]
    if all(n.endswith(".parquet") for n in names):
        rel = con.read_parquet(
            names, union_by_name=True, filename=True, file_row_number=True, hive_partitioning=False
        )
        staging.create_raw_view(con, RAW_VIEW, rel)
        return
    if all(n.endswith((".csv", ".csv.gz")) for n in names):
        rel = con.read_csv(names, all_varchar=True, header=True, union_by_name=True, filename=True)
        staging.create_raw_view(con, f"{RAW_VIEW}_text", rel)
        cols = staging.view_columns(con, f"{RAW_VIEW}_text")
        maps = [c for c in MAP_COLUMNS if c in cols]
        replace = ", ".join(
            f"CAST(json(CASE WHEN {c} IS NULL OR trim({c}) = '' THEN '{{}}' ELSE {c} END) "
            f"AS MAP(VARCHAR, VARCHAR)) AS {c}"
            for c in maps
        )
        select = f"* REPLACE ({replace})" if replace else "*"
        staging.number_rows(con, f"{RAW_VIEW}_text", f"{RAW_VIEW}_numbered")
        staging.check_json_objects(con, f"{RAW_VIEW}_numbered", maps)
        con.execute(f"CREATE OR REPLACE TEMP VIEW {RAW_VIEW} AS SELECT {select} FROM {RAW_VIEW}_numbered")
        return
    raise InputError(f"{files[0].parent}: expected .parquet or .csv.gz data files, got {names[0]}")


def ingest(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    if not source.uri:
        raise SourceError(f"source {source.name!r}: `uri` is required for kind aws-cur2")
    if source.uri.startswith("s3://"):
        raise SourceError(f"source {source.name!r}: s3:// is not supported yet; sync the export to a folder")
    root = Path(config.resolve(source.uri))
    if not root.exists():
        raise SourceError(f"source {source.name!r}: {root} does not exist")
    periods = [p for p in _periods(root) if period is None or p == period]
    results = []
    for billing_period in periods:
        version, files = _manifest(root, billing_period)
        if staging.known_version(con, source.name, billing_period) == version:
            reporter.detail(f"{source.name} {billing_period}: unchanged, skipped")
            results.append(IngestResult(source.name, billing_period, 0, skipped=True, version=version))
            continue
        reporter.step(f"{source.name} {billing_period}: reading {len(files)} file(s)")
        results.append(load_period(con, source.name, billing_period, files, version))
    return results


def load_period(con: Connection, source: str, period: str, files: list[Path], version: str) -> IngestResult:
    scan(con, files)
    where = str(files[0]) if len(files) == 1 else str(files[0].parent)
    staging.add_missing_columns(con, RAW_VIEW, OPTIONAL, REQUIRED, where, "CUR 2.0")
    staging.first_problem(con, "validate_cur2", {"period": period})
    con.execute(
        "CREATE OR REPLACE TEMP TABLE staged_charges AS " + queries.load("normalize_cur2"), {"source": source}
    )
    staging.first_problem(con, "validate_staged", {})
    return staging.replace_period(
        con,
        source=source,
        period=period,
        staged="staged_charges",
        version=version,
        files=[str(f) for f in files],
    )
