"""Legacy AWS Cost and Usage Reports, local or ``s3://``: the newest assembly replaces the whole month.

Layout under the source ``uri`` (``<prefix>/<report name>``)::

    yyyymmdd-yyyymmdd/<report>-Manifest.json            the current assembly, overwritten at each delivery
    yyyymmdd-yyyymmdd/<assemblyId>/<report>-<n>.csv.gz  each delivery restates the month to date
    yyyymmdd-yyyymmdd/<assemblyId>/<report>-Manifest.json

Only the top-level manifest's ``reportKeys`` are read, all of them, and the period is replaced in one step:
never a union of assemblies, never a single chunk. Columns (``lineItem/UnblendedCost``, or the Athena
parquet form ``line_item_unblended_cost``) are renamed onto the CUR 2.0 names and ``resourceTags/user:<Key>``
columns folded into the ``resource_tags`` map, so one normaliser (``ingest/normalize_cur2.sql``) serves both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from trainledger.connectors import aws_cur2, sql_slots, staging
from trainledger.connectors.aws_session import EXAMPLE_OPTIONS
from trainledger.connectors.bill_storage import (
    BillFile,
    ContentHashes,
    Entry,
    LocalStorage,
    Storage,
    fingerprint,
    read_manifest,
    resolve,
)
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import AwsFiles, data_files, open_storage
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import InputError, SourceError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

TEXT_VIEW = "cur_legacy_text"
DATA_SUFFIXES = staging.SUFFIXES["csv"] + staging.SUFFIXES["parquet"]
_TOP_MANIFEST = re.compile(r"^(\d{8})-(\d{8})/[^/]*Manifest\.json$")
_TAG_COLUMN = re.compile(r"^(?:resourceTags/|resource_tags_)(.+)$")
_COST_CATEGORY_COLUMN = re.compile(r"^(?:costCategory/|cost_category_)")
# Product attributes the normaliser reads from CUR 2.0's product map.
_PRODUCT_KEYS = {"product_product_name": "product_name", "product_region": "region"}


def cur2_name(column: str) -> str:
    """``lineItem/UnblendedCost`` → ``line_item_unblended_cost``, as AWS's own parquet form spells it.

    Every capital starts a word (so ``reservation/ReservationARN`` → ``reservation_reservation_a_r_n``,
    as in CUR 2.0); names already in snake case are unchanged.
    """
    text = re.sub(r"([A-Z])", r"_\1", column).lower()
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


Options = AwsFiles
EXAMPLE = Example("s3://my-billing-bucket/cur/legacy-report", "AWS legacy CUR", EXAMPLE_OPTIONS)


@dataclass(frozen=True)
class Assembly:
    """Where a delivery is read from: the storage and the period's top-level manifest (None: files without
    one, whose rows name their periods, of which ``only`` is kept)."""

    storage: Storage
    manifest: str | None
    only: str | None = None


def assemblies(storage: Storage, period: str | None, source: str, reporter: Reporter) -> list[Delivery]:
    """The current assembly of each period, from the top-level manifests in the listing."""
    entries = storage.entries()
    found = []
    for entry in entries:
        match = _TOP_MANIFEST.match(entry.key)
        if not match:
            continue
        start = match.group(1)
        billing_period = f"{start[:4]}-{start[4:6]}"
        if period is not None and billing_period != period:
            continue
        folder = entry.key.split("/", 1)[0] + "/"
        version = fingerprint(e for e in entries if e.key.startswith(folder))
        found.append(Delivery(billing_period, version, Assembly(storage, entry.key)))
    if found or any(_TOP_MANIFEST.match(e.key) for e in entries):
        return sorted(found, key=lambda d: d.period or "")
    data = [e for e in entries if e.key.endswith(DATA_SUFFIXES)]
    if isinstance(storage, LocalStorage) and data:
        reporter.warn(
            f"{source}: no report manifest under {storage.describe()}: reading its {len(data)} file(s) as one "
            "complete delivery (local files only)"
        )
        return [Delivery(None, fingerprint(data), Assembly(storage, None, period))]
    raise SourceError(
        f"{storage.describe()}: no yyyymmdd-yyyymmdd/<report>-Manifest.json found: the legacy CUR manifest is "
        "missing; point uri at <prefix>/<report name>"
    )


def report_files(assembly: Assembly) -> list[str]:
    """All ``reportKeys`` of the current assembly (or every data file when there is no manifest)."""
    storage = assembly.storage
    if assembly.manifest is None:
        return [e.key for e in storage.entries() if e.key.endswith(DATA_SUFFIXES)]
    where = storage.describe(assembly.manifest)
    manifest, listed = read_manifest(storage, assembly.manifest, "reportKeys", "CUR report manifest")
    if not listed:
        raise InputError(f"{where}: assembly {manifest.get('assemblyId')!r} lists no report files")
    keys = []
    for reference in listed:
        key = resolve(storage, str(reference))
        if key is None:
            raise SourceError(
                f"{where}: names report file {reference!r} (assembly {manifest.get('assemblyId')!r}), "
                f"which does not exist under {storage.describe()}"
            )
        if key.endswith(".zip"):
            raise InputError(
                f"{where}: ZIP-compressed reports are not supported; choose GZIP or Parquet for the report"
            )
        keys.append(key)
    return keys


def scan(con: Connection, files: Sequence[BillFile], *, union: bool = False) -> None:
    """Read legacy CUR files (csv, csv.gz or parquet) and expose them under CUR 2.0 column names.

    The chunks of one assembly share a header; ``union`` (files without a manifest, perhaps of several
    months whose columns differ) matches columns by name, at the cost of a read buffer per file.
    """
    found = staging.formats(files)
    if found == {"parquet"}:
        staging.read_parquet(con, TEXT_VIEW, files)
    elif found == {"csv"}:
        staging.read_csv(con, f"{TEXT_VIEW}_rows", files, union_by_name=union, sample_size=1)
        staging.number_rows(con, f"{TEXT_VIEW}_rows", TEXT_VIEW)
    else:
        raise InputError(
            f"{files[0].parent}: expected .csv, .csv.gz or .parquet report files, got {files[0]}"
        )
    staging.derive_view(con, aws_cur2.RAW_VIEW, TEXT_VIEW, _projection(staging.view_columns(con, TEXT_VIEW)))


def _projection(columns: dict[str, str]) -> sql_slots.Fragment:
    """The select list renaming legacy columns to CUR 2.0 names, with tags and product attributes as maps.

    Column names come from the file header; they reach SQL only as quoted identifiers and literals.
    """
    select: list[sql_slots.Fragment] = []
    taken = {"filename", "file_row_number"}
    tags: list[tuple[str, str]] = []
    renamed: dict[str, str] = {}
    for column in columns:
        if column in taken:
            continue
        if match := _TAG_COLUMN.match(column):
            tags.append((match.group(1), column))
            continue
        if _COST_CATEGORY_COLUMN.match(column):
            continue
        target = cur2_name(column)
        if not target or target in renamed.values() or target in taken:
            continue
        renamed[column] = target
        select.append(sql_slots.alias(sql_slots.ident(column), target))
    if tags:
        select.append(sql_slots.alias(_map(tags), "resource_tags"))
    product = [(key, source) for source, key in _PRODUCT_KEYS.items() if source in renamed.values()]
    if product:
        select.append(sql_slots.alias(_map(product), "product"))
    select += [sql_slots.ident("filename"), sql_slots.ident("file_row_number")]
    return sql_slots.columns(select)


def _map(pairs: list[tuple[str, str]]) -> sql_slots.Fragment:
    """A MAP(VARCHAR, VARCHAR) of the non-empty values of (key, column) pairs."""
    entries = ", ".join(
        f"{{'k': {sql_slots.literal(key).text}, 'v': CAST({sql_slots.ident(col).text} AS VARCHAR)}}"
        for key, col in pairs
    )
    return sql_slots.Fragment(
        f"CAST(map_from_entries(list_filter([{entries}], lambda e: e.v IS NOT NULL AND e.v <> '')) "
        "AS MAP(VARCHAR, VARCHAR))"
    )


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    storage = open_storage(source, config)
    if isinstance(storage, LocalStorage) and storage.root.is_file():
        if not storage.root.name.endswith(DATA_SUFFIXES):
            raise InputError(
                f"{storage.root}: {staging.looks_like(storage.root)}, not a legacy CUR report; expected a "
                "report file (.csv, .csv.gz or .parquet) or the report's folder <prefix>/<report name> with "
                "its yyyymmdd-yyyymmdd/<report>-Manifest.json"
            )
        storage = _SingleFile(storage.root, storage.hashes)
    return assemblies(storage, period, source.name, reporter)


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    assembly: Assembly = delivery.ref
    keys = report_files(assembly)
    reporter.step(f"{source.name} {delivery.period or 'file'}: reading {len(keys)} report file(s)")
    scope = assembly.manifest.split("/", 1)[0] if assembly.manifest else None
    files, names = data_files(con, assembly.storage, keys, scope, config)
    return aws_cur2.stage_files(
        con,
        source.name,
        delivery.period,
        files,
        reporter,
        names=names,
        scanner=scan if assembly.manifest else partial(scan, union=True),
        what="CUR",
        only=assembly.only,
    )


class _SingleFile(LocalStorage):
    """One local report file given directly as the ``uri``."""

    def __init__(self, path: Path, hashes: ContentHashes) -> None:
        super().__init__(path.parent, hashes)
        self.path = path

    def entries(self) -> list[Entry]:
        entry = Entry(self.path.name, self.path.stat().st_size, self.hashes.of(self.path))
        self.hashes.save()
        return [entry]
