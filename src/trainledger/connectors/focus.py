"""Any FOCUS 1.x Cost and Usage file (CSV, csv.gz or parquet; Azure, OCI, AWS or GCP exports), 1.3 included.

Real files bend the spec (the official sample writes nulls as ``NULL``, the spec's own examples ``null``,
timestamps come without ``T``/``Z``), so everything is read as text and cast here, with a clear error for
what cannot be cast. FOCUS 1.3 (FOCUS_Spec ``specification/datasets/cost_and_usage/columns/``): the
provider is ``ServiceProviderName`` (``ProviderName`` is deprecated); an allocated charge of a data
generator-calculated split cost allocation is a charge of its ``AllocatedResourceId`` with its
``AllocatedTags`` over its ``Tags``, as a pod's row is, and an origin charge kept whole beside the
allocated charges that restate it is left out (``ingest/focus_restated_origins.sql``), so it counts once;
``ContractApplied`` is kept with the charge (its ``credits``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from trainledger.connectors import bill_loader, rounding, sql_slots, staging
from trainledger.connectors.bill_storage import BillFile, ContentHashes
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import (
    LocalFiles,
    content_hashes,
    files_under,
    local_path,
    required_uri,
)
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import InputError
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
        # FOCUS 1.3
        "ServiceProviderName",
        "HostProviderName",
        "AllocatedMethodId",
        "AllocatedMethodDetails",
        "AllocatedResourceId",
        "AllocatedResourceName",
        "AllocatedTags",
        "ContractApplied",
    )
}
# Columns whose values are JSON: a parquet file may hold them as maps, structs or lists.
JSON_COLUMNS = ("Tags", "AllocatedTags", "AllocatedMethodDetails", "ContractApplied")
SUFFIXES = staging.SUFFIXES["csv"] + staging.SUFFIXES["parquet"]
# The money columns: summed (each total must fit DECIMAL(38, 12)) and their rounding recorded (rounding.py)
# over the rows that become charges (focus_rows: an origin charge its allocated charges restate is not one).
MONEY = rounding.MoneyColumns(
    "focus_rows", "BillingPeriodStart", "BillingCurrency", ("BilledCost", "EffectiveCost", "ListCost")
)
Options = LocalFiles
EXAMPLE = Example("billing/focus.csv", "any provider's FOCUS 1.x CSV or parquet, a file or folder")


def _fingerprint(files: list[Path], hashes: ContentHashes) -> str:
    """The files' names and contents: a same-size correction with its mtime kept (``cp -p``) is a change."""
    digest = hashlib.sha256()
    for f in files:
        digest.update(f"{f}:{hashes.of(f)}\n".encode())
    hashes.save()
    return digest.hexdigest()


def _nested(duckdb_type: str) -> bool:
    return duckdb_type.startswith(("MAP", "STRUCT")) or duckdb_type.endswith("[]")


def scan(con: Connection, files: Sequence[BillFile]) -> None:
    found = staging.formats(files)
    if found == {"parquet"}:
        staging.read_parquet(con, f"{RAW_VIEW}_typed", files)
        types = staging.view_columns(con, f"{RAW_VIEW}_typed")
        # AWS writes Tags as a parquet map; charges keep tags (and the other JSON columns) as JSON text. Names
        # match whatever their case: Athena and Glue lowercase every column name (tags), and SQL does not care.
        named = {name.lower(): name for name in types}
        present = [named[c.lower()] for c in JSON_COLUMNS if c.lower() in named]
        nested = [c for c in present if _nested(types[c])]
        replace = sql_slots.columns(
            sql_slots.alias(sql_slots.Fragment(f"CAST(to_json({sql_slots.ident(c).text}) AS VARCHAR)"), c)
            for c in nested
        )
        select = sql_slots.Fragment(f"* REPLACE ({replace.text})" if nested else "*")
        staging.derive_view(con, RAW_VIEW, f"{RAW_VIEW}_typed", select)
        return
    if "parquet" in found:
        raise InputError(f"{files[0].parent}: mixes parquet and CSV FOCUS files; keep one format per source")
    for f in files:
        if isinstance(f, Path) and f.stat().st_size == 0:
            raise InputError(f"{f}: file is empty; expected a FOCUS CSV with a header line")
    staging.read_csv(
        con, f"{RAW_VIEW}_text", files, union_by_name=True, null_padding=False, na_values=["NULL", "null", ""]
    )
    # Azure Cost Management's exports write a second byte order mark, before the first data row
    # (Azure/azure-sdk-for-net#34129): its first value would read '\ufeff12.50'. DuckDB skips the file's own.
    first = next(iter(staging.view_columns(con, f"{RAW_VIEW}_text")))
    unmarked = sql_slots.alias(sql_slots.Fragment(f"ltrim({sql_slots.ident(first).text}, chr(65279))"), first)
    staging.derive_view(
        con, f"{RAW_VIEW}_unmarked", f"{RAW_VIEW}_text", sql_slots.Fragment(f"* REPLACE ({unmarked.text})")
    )
    staging.number_rows(con, f"{RAW_VIEW}_unmarked", RAW_VIEW)


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    """One delivery: every FOCUS file under ``uri``, whose rows name their periods."""
    uri = required_uri(source, source.options_as(LocalFiles).uri)
    root = local_path(source, config, uri, remote="kind focus reads local files; use aws-focus for s3://")
    files = files_under(root, SUFFIXES, "FOCUS files (.csv, .csv.gz, .parquet)")
    return [Delivery(None, _fingerprint(files, content_hashes(source, config)), files)]


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    return stage_files(con, source.name, delivery.ref, reporter)


def stage_files(
    con: Connection,
    source: str,
    files: Sequence[BillFile],
    reporter: Reporter,
    names: dict[str, str] | None = None,
) -> Staged:
    """Stage FOCUS files (the periods their rows name) in ``staged_charges``."""
    reporter.step(f"{source}: reading {len(files)} FOCUS file(s)")
    scan(con, files)
    staging.show_files_as(con, RAW_VIEW, names)
    shown = [names.get(str(f), str(f)) if names else str(f) for f in files]
    where = shown[0] if len(shown) == 1 else str(Path(shown[0]).parent)
    staging.add_missing_columns(
        con, RAW_VIEW, OPTIONAL, REQUIRED, where, "FOCUS", staging.local_csv(files, shown)
    )
    staging.first_problem(con, "ingest/validate_focus", {})
    staging.check_sums(con, f"{RAW_VIEW}_full", MONEY.columns)
    sql_slots.run_filled(con, "ingest/focus_restated_origins")
    (restated,) = sql_slots.run_filled(con, "ingest/focus_restated_count").fetchone() or (0,)
    if restated:
        reporter.step(
            f"{source}: {restated} origin charge(s) restated by their allocated charges (FOCUS split cost "
            "allocation) counted once, through the allocated charges"
        )
    sql_slots.run_filled(con, "ingest/focus_rows")
    bill_loader.stage_table(con, "ingest/normalize_focus", {"source": source})
    return Staged(shown, residues=partial(rounding.residues, con, MONEY))
