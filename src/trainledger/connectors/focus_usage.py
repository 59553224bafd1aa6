"""A GPU cloud's usage-only FOCUS export (CSV), priced by the ``[[rates]]`` card's ``sku`` entries.

CoreWeave's FOCUS Billing Export API (public preview since September 2026) returns FOCUS 1.2 rows at hourly
grain with usage quantities only: the cost columns are blank, and rows are aggregated (not per node). Each
row is priced as PricingQuantity (else ConsumedQuantity) in PricingUnit (else ConsumedUnit) of its SkuId, at
the rate valid at ChargePeriodStart. A row that has a BilledCost is a priced bill, read by kind ``focus``,
and refused here so that a provider's cost is never replaced by ours.

Files are small (hourly rows of a few SKUs), so rows are checked in Python with their line numbers, as the
``manual`` ledger's are. A file or folder of ``.csv`` files is one delivery, versioned by its content and
the rate card; the periods its rows name are replaced.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from trainledger.connectors import rated
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import files_under, local_path, required_uri
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig, SourceOptions
from trainledger.core.errors import InputError
from trainledger.core.money import to_decimal
from trainledger.core.rate_card import RateCard
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

REQUIRED = ("ChargePeriodStart", "ChargePeriodEnd", "SkuId")
QUANTITIES = (("PricingQuantity", "PricingUnit"), ("ConsumedQuantity", "ConsumedUnit"))


class Options(SourceOptions):
    uri: str | None = None  # a .csv file or a folder of them
    provider: str = Field(min_length=1)  # the provider id every output uses, e.g. "coreweave"
    service: str = Field(default="GPU cloud", min_length=1)  # service name where a row gives none


EXAMPLE = Example(
    "coreweave-focus/",
    "a GPU cloud's usage-only FOCUS CSV (CoreWeave), priced by [[rates]] sku entries",
    required=('provider = "coreweave"  # the provider id in every output',),
    options=('service = "GPU cloud"  # the service name where a row has no ServiceName',),
)


def _files(source: SourceConfig, config: Config) -> list[Path]:
    options = source.options_as(Options)
    uri = required_uri(source, options.uri)
    root = local_path(
        source, config, uri, remote="kind focus-usage reads local CSV files", what="usage export "
    )
    return files_under(root, (".csv",), "usage export .csv files")


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    """One delivery: every file, versioned by their content and the rate card; the rows name the bill_loader."""
    files = _files(source, config)
    digest = hashlib.sha256(RateCard(config.rates, "sku").fingerprint().encode())
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return [Delivery(None, digest.hexdigest(), files)]


def _time(value: str, where: str, column: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None or not 2000 <= parsed.year <= 2099:
        raise InputError(
            f"{where}, column {column}: expected an ISO 8601 time (years 2000-2099), got {value!r}"
        )
    return parsed.astimezone(UTC).replace(tzinfo=None) if parsed.tzinfo else parsed


def _text(row: dict[str, str | None], column: str) -> str | None:
    return (row.get(column) or "").strip() or None


def parse_row(path: Path, line: int, row: dict[str, str | None], options: Options) -> rated.Usage:
    where = f"{path}:{line}"
    for column in REQUIRED:
        if not _text(row, column):
            raise InputError(f"{where}, column {column}: expected a value, got nothing")
    if _text(row, "BilledCost"):
        raise InputError(
            f"{where}, column BilledCost: expected it blank (usage without a cost); a priced FOCUS bill is "
            "read by kind focus"
        )
    start = _time(row["ChargePeriodStart"] or "", where, "ChargePeriodStart")
    end = _time(row["ChargePeriodEnd"] or "", where, "ChargePeriodEnd")
    if end <= start:
        raise InputError(f"{where}, column ChargePeriodEnd: expected a time after ChargePeriodStart")
    for quantity_column, unit_column in QUANTITIES:
        text, unit = _text(row, quantity_column), _text(row, unit_column)
        if text is None:
            continue
        try:
            quantity = to_decimal(text)
        except ValueError:
            raise InputError(
                f"{where}, column {quantity_column}: expected a decimal number, got {text!r}"
            ) from None
        if quantity < 0:
            raise InputError(f"{where}, column {quantity_column}: expected a quantity >= 0, got {text!r}")
        if unit is None:
            raise InputError(
                f"{where}, column {unit_column}: expected the unit of {quantity_column}, got nothing"
            )
        break
    else:
        raise InputError(
            f"{where}, column PricingQuantity: expected a quantity (or ConsumedQuantity), got nothing"
        )
    tags = _text(row, "Tags") or "{}"
    try:
        parsed = json.loads(tags)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise InputError(f"{where}, column Tags: expected a JSON object, got {tags!r}")
    sku = (row["SkuId"] or "").strip()
    return rated.Usage(
        file=str(path),
        row=line,
        start=start,
        end=end,
        key=sku,
        quantity=quantity,
        unit=unit,
        service_name=_text(row, "ServiceName") or options.service,
        service_category=_text(row, "ServiceCategory") or "Compute",
        resource_id=_text(row, "ResourceId"),
        resource_type=_text(row, "ResourceType"),
        region_id=_text(row, "RegionId"),
        billing_account_id=_text(row, "BillingAccountId"),
        sub_account_id=_text(row, "SubAccountId"),
        tags=json.dumps(parsed, sort_keys=True),
        row_identity=f"{sku}@{start:%Y-%m-%dT%H:%M}",
    )


def _rows(path: Path, options: Options) -> list[rated.Usage]:
    text = path.read_text(encoding="utf-8-sig")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(
            f"{path}: line 1: missing column(s) {', '.join(missing)}; expected a FOCUS usage export with "
            f"{', '.join(REQUIRED)} and PricingQuantity/PricingUnit or ConsumedQuantity/ConsumedUnit"
        )
    return [parse_row(path, line, row, options) for line, row in enumerate(reader, start=2)]


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    options = source.options_as(Options)
    files: list[Path] = delivery.ref
    usage = [u for path in files for u in _rows(path, options)]
    return rated.stage(
        con,
        source=source.name,
        provider=options.provider,
        card=RateCard(config.rates, "sku"),
        usage=usage,
        files=[str(p) for p in files],
        reporter=reporter,
    )
