"""AWS Data Exports CUR 2.0, local or ``s3://``: manifest-driven, one billing period replaced at a time.

Layout: ``<prefix>/<export>/data/BILLING_PERIOD=YYYY-MM/*.parquet|*.csv.gz`` with the manifest in
``<prefix>/<export>/metadata/BILLING_PERIOD=YYYY-MM/<export>-Manifest.json``, written after the data. The
source ``uri`` is ``<prefix>/<export>``. AWS's FOCUS exports use the same layout (see ``aws_focus``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from trainledger.connectors import rounding, sql_slots, staging
from trainledger.connectors.aws_session import EXAMPLE_OPTIONS
from trainledger.connectors.bill_storage import (
    BillFile,
    Entry,
    LocalStorage,
    Storage,
    fingerprint,
    read_manifest,
    resolve,
)
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import AwsFiles, data_files, open_storage
from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import InputError, SourceError
from trainledger.core.money import fmt
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

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
    "bill_invoice_id": "VARCHAR",
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
    # split cost allocation data (EKS/ECS pods), read by ingest/normalize_cur2.sql
    "split_line_item_parent_resource_id": "VARCHAR",
    "split_line_item_split_cost": "DOUBLE",
    "split_line_item_unused_cost": "DOUBLE",
    "split_line_item_public_on_demand_split_cost": "DOUBLE",
    # capacity reservations (ODCR, Capacity Blocks for ML), table config INCLUDE_CAPACITY_RESERVATION_DATA
    "capacity_reservation_capacity_reservation_arn": "VARCHAR",
}

# The cost columns whose totals charges and reports make (each must fit DECIMAL(38, 12): staging.check_sums).
SUMMED = (
    "line_item_unblended_cost",
    "pricing_public_on_demand_cost",
    "reservation_effective_cost",
    "savings_plan_savings_plan_effective_cost",
)

MAP_COLUMNS = ("resource_tags", "product", "cost_category", "discount")

# Whose rounding to 12 decimal places is recorded (rounding.py): BilledCost's column, ListCost's, and the
# EffectiveCost of covered usage (the rest of EffectiveCost is the unblended cost).
MONEY = rounding.MoneyColumns(
    f"{RAW_VIEW}_full", "bill_billing_period_start_date", "line_item_currency_code", SUMMED
)


Options = AwsFiles
EXAMPLE = Example(
    "s3://my-billing-bucket/cur/ml-cur2", "AWS Data Exports CUR 2.0 (parquet or csv.gz)", EXAMPLE_OPTIONS
)


@dataclass(frozen=True)
class PeriodManifest:
    """Where one period's delivery is read from: the storage and the period's current manifest."""

    storage: Storage
    manifest: str


_MANIFEST = re.compile(r"^metadata/BILLING_PERIOD=(\d{4}-\d{2})/[^/]*Manifest\.json$")
_DATA = re.compile(r"^data/BILLING_PERIOD=(\d{4}-\d{2})/")


def exports(
    storage: Storage, period: str | None, reporter: Reporter, what: str = "CUR 2.0"
) -> list[Delivery]:
    """The periods of a Data Exports layout (CUR 2.0 or FOCUS), decided from the listing alone.

    The version covers the period's manifest and data objects, so a rewritten period (new execution, late
    restatement) is seen without reading anything.
    """
    if isinstance(storage, LocalStorage) and storage.root.is_file():
        raise InputError(
            f"{storage.root}: {staging.looks_like(storage.root)}, not a Data Exports folder; expected uri "
            f"= <prefix>/<export name>, a folder with data/ and metadata/ inside ({what})"
        )
    manifests: dict[str, list[Entry]] = defaultdict(list)
    data: dict[str, list[Entry]] = defaultdict(list)
    for entry in storage.entries():
        if match := _MANIFEST.match(entry.key):
            manifests[match.group(1)].append(entry)
        elif match := _DATA.match(entry.key):
            data[match.group(1)].append(entry)
    if not manifests:
        if data:
            raise SourceError(
                f"{storage.describe('metadata/')}: no *-Manifest.json: the {what} manifest is missing"
            )
        raise SourceError(
            f"{storage.describe()}: not a Data Exports folder (expected data/ and metadata/ inside); "
            "point uri at <prefix>/<export name>"
        )
    if period is not None and period not in manifests:
        raise SourceError(
            f"{storage.describe(f'metadata/BILLING_PERIOD={period}/')}: no *-Manifest.json: "
            f"the export for {period} is incomplete or missing"
        )
    for waiting in sorted(set(data) - set(manifests)):
        if period in (None, waiting):
            reporter.warn(f"{storage.describe()}: {waiting} has data files but no manifest yet; skipped")
    found = []
    for billing_period in sorted(manifests):
        if period is None or billing_period == period:
            manifest = max(manifests[billing_period], key=lambda e: e.key)
            version = fingerprint([manifest, *data[billing_period]])
            found.append(Delivery(billing_period, version, PeriodManifest(storage, manifest.key)))
    return found


def manifest_files(export: PeriodManifest, period: str | None) -> list[str]:
    """The data files the period's manifest names (``dataFiles``), each checked to exist."""
    storage = export.storage
    where = storage.describe(export.manifest)
    _, listed = read_manifest(storage, export.manifest, "dataFiles", "Data Exports manifest")
    if not listed:
        raise InputError(f"{where}: the manifest lists no data files")
    files = []
    partition = f"data/BILLING_PERIOD={period}/"
    for reference in listed:
        key = resolve(storage, str(reference))
        if key is None:
            raise SourceError(
                f"{where}: names data file {reference!r}, which does not exist under {storage.describe()}"
            )
        if not key.startswith(partition):
            raise InputError(f"{where}: data file {reference!r} is outside {partition}")
        files.append(key)
    return files


def scan(con: Connection, files: Sequence[BillFile]) -> None:
    """Create the raw view over the period's files, parquet or csv.gz, with maps as maps."""
    found = staging.formats(files)
    if found == {"parquet"}:
        staging.read_parquet(con, f"{RAW_VIEW}_typed", files)
        staging.derive_view(con, RAW_VIEW, f"{RAW_VIEW}_typed", _maps_from_text(con, f"{RAW_VIEW}_typed"))
        return
    if found == {"csv"}:
        # One delivery shares one header, so no union_by_name: it holds a read buffer per file (~17 MB each),
        # which ran out of memory on a 1,100-file period. sample_size=1 skips re-sniffing every file.
        staging.read_csv(con, f"{RAW_VIEW}_text", files, sample_size=1)
        cols = staging.view_columns(con, f"{RAW_VIEW}_text")
        maps = [c for c in MAP_COLUMNS if c in cols]
        staging.number_rows(con, f"{RAW_VIEW}_text", f"{RAW_VIEW}_numbered")
        staging.check_json_objects(con, f"{RAW_VIEW}_numbered", maps)
        replace = sql_slots.columns(sql_slots.alias(_json_map(sql_slots.ident(m)), m) for m in maps)
        select = sql_slots.Fragment(f"* REPLACE ({replace.text})" if maps else "*")
        staging.derive_view(con, RAW_VIEW, f"{RAW_VIEW}_numbered", select)
        return
    raise InputError(f"{files[0].parent}: expected .parquet or .csv.gz data files, got {files[0]}")


def _maps_from_text(con: Connection, view: str) -> sql_slots.Fragment:
    """The parquet columns, with map columns some exports write as JSON text (``{"user_project": "x"}``)
    read as maps; a cell that is not a JSON object, or a map column of another type, is an error."""
    types = staging.view_columns(con, view)
    texts = []
    for column in MAP_COLUMNS:
        kind = types.get(column)
        if kind is None or kind.startswith("MAP("):
            continue
        if kind != "VARCHAR":
            raise InputError(
                f"{_first_file(con, view)}: column {column}: expected a map or a JSON object as text, got "
                f"parquet type {kind}"
            )
        texts.append(column)
    staging.check_json_objects(con, view, texts)
    replace = sql_slots.columns(sql_slots.alias(_json_map(sql_slots.ident(m)), m) for m in texts)
    return sql_slots.Fragment(f"* REPLACE ({replace.text})" if texts else "*")


def _first_file(con: Connection, view: str) -> str:
    row = sql_slots.run_filled(con, "ingest/first_file", view=sql_slots.ident(view)).fetchone()
    return str(row[0]) if row else view


def _json_map(column: sql_slots.Fragment) -> sql_slots.Fragment:
    """A map column written as JSON text, as a map (empty text: an empty map)."""
    c = column.text
    return sql_slots.Fragment(
        f"CAST(json(CASE WHEN {c} IS NULL OR trim({c}) = '' THEN '{{}}' ELSE {c} END) AS MAP(VARCHAR, VARCHAR))"
    )


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    return exports(open_storage(source, config), period, reporter)


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    export: PeriodManifest = delivery.ref
    keys = manifest_files(export, delivery.period)
    reporter.step(f"{source.name} {delivery.period}: reading {len(keys)} file(s)")
    files, names = data_files(con, export.storage, keys, f"data/BILLING_PERIOD={delivery.period}/", config)
    return stage_files(con, source.name, delivery.period, files, reporter, names=names)


Scanner = Callable[[Connection, Sequence[BillFile]], None]


def stage_files(
    con: Connection,
    source: str,
    period: str | None,
    files: Sequence[BillFile],
    reporter: Reporter,
    *,
    names: dict[str, str] | None = None,
    scanner: Scanner = scan,
    what: str = "CUR 2.0",
    only: str | None = None,
) -> Staged:
    """Scan and validate the files; their rows then stream through ``normalize_cur2`` into charges.

    ``period`` None (files without a manifest): the periods the rows name, or just ``only``.
    """
    scanner(con, files)
    staging.show_files_as(con, RAW_VIEW, names)
    shown = [names.get(str(f), str(f)) if names else str(f) for f in files]
    where = shown[0] if len(shown) == 1 else str(Path(shown[0]).parent)
    staging.add_missing_columns(
        con, RAW_VIEW, OPTIONAL, REQUIRED, where, what, staging.local_csv(files, shown)
    )
    staging.first_problem(con, "ingest/validate_cur2", {"period": period})
    staging.check_sums(con, f"{RAW_VIEW}_full", SUMMED)
    scope = {"only": only if period is None else None}
    if (con.execute(queries.load("ingest/line_items_repeated"), scope).fetchone() or (0,))[0]:
        staging.first_problem(con, "ingest/validate_line_items_unique", scope)
    return Staged(
        shown,
        query="ingest/normalize_cur2",
        params={"source": source},
        periods=None if period is None else [period],
        loaded=partial(warn_unknown_types, con, source, reporter),
        residues=partial(rounding.residues, con, MONEY),
    )


def warn_unknown_types(con: Connection, source: str, reporter: Reporter, periods: list[str]) -> None:
    """Line item types trainledger has no rule for, in the periods just loaded: carried as Adjustment."""
    loaded = {"source": source, "periods": periods}
    for kind, count, billed in con.execute(
        queries.load("ingest/cur_unknown_line_item_types"), loaded
    ).fetchall():
        reporter.warn(
            f"{source}: {count} line item(s) of unknown type {kind!r} (billed {fmt(billed)}) carried as Adjustment"
        )
