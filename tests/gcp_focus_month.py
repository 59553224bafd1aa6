"""The GCP test month (tests/gcp_month.py) as Google's FOCUS export would hold it, converted here in plain
Python (``json``, ``Decimal``, ``zoneinfo``), never through trainledger.

Columns and types are those a live ``gcp_billing_export_focus_<ACCOUNT>`` table lists in its
INFORMATION_SCHEMA (etiennechabert/cost-goblin, scripts/gcp-focus-exporter/export-focus.test.mjs); values
follow Google's published FOCUS view over the detailed export (BilledCost = EffectiveCost = cost + Σ
credits, credits listed in x_Credits, ChargeCategory from cost_type, PricingCategory Committed for a CUD
or a commitment SKU). Where that 1.0 view and FOCUS 1.2 disagree, 1.2 wins, as the native export is 1.2:
a commitment's fee is a Purchase, SubAccountId is the project.

Written three ways: rows with Python values (for the BigQuery fake, with its ``SCHEMA``), JSON Lines as
BigQuery extracts them (TIMESTAMP as ``YYYY-MM-DD hh:mm:ss UTC``, NUMERIC as decimal text), and parquet
as EXPORT DATA writes it (NUMERIC as decimal(38, 9), TIMESTAMP in UTC, repeated records as lists).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.parquet as pq

import gcp_month

PACIFIC = ZoneInfo("America/Los_Angeles")
CATEGORIES = {"regular": "Usage", "tax": "Tax", "rounding_error": "Adjustment", "adjustment": "Adjustment"}

KEY_VALUE = [{"name": "Key", "type": "STRING"}, {"name": "Value", "type": "STRING"}]
CREDIT = [
    {"name": "Name", "type": "STRING"},
    {"name": "Amount", "type": "NUMERIC"},
    {"name": "FullName", "type": "STRING"},
    {"name": "Id", "type": "STRING"},
    {"name": "Type", "type": "STRING"},
]
PROJECT = [
    {"name": "Id", "type": "STRING"},
    {"name": "Number", "type": "STRING"},
    {"name": "Name", "type": "STRING"},
]
# name -> BigQuery type (RECORD fields: (mode, fields)); the order of the live table's first columns.
COLUMNS: dict[str, Any] = {
    "AvailabilityZone": "STRING",
    "BilledCost": "NUMERIC",
    "BillingAccountId": "STRING",
    "BillingCurrency": "STRING",
    "BillingPeriodStart": "TIMESTAMP",
    "BillingPeriodEnd": "TIMESTAMP",
    "ChargeCategory": "STRING",
    "ChargeClass": "STRING",
    "ChargeDescription": "STRING",
    "ChargePeriodStart": "TIMESTAMP",
    "ChargePeriodEnd": "TIMESTAMP",
    "ConsumedQuantity": "NUMERIC",
    "ConsumedUnit": "STRING",
    "ContractedCost": "NUMERIC",
    "ListCost": "NUMERIC",
    "PricingCategory": "STRING",
    "ProviderName": "STRING",
    "PublisherName": "STRING",
    "RegionId": "STRING",
    "ResourceId": "STRING",
    "ResourceName": "STRING",
    "ServiceName": "STRING",
    "SkuId": "STRING",
    "SubAccountId": "STRING",
    "SubAccountName": "STRING",
    "x_Credits": ("REPEATED", CREDIT),
    "x_CostType": "STRING",
    "x_CurrencyConversionRate": "FLOAT64",
    "x_ExportTime": "TIMESTAMP",
    "x_Location": "STRING",
    "x_Project": ("NULLABLE", PROJECT),
    "x_ServiceId": "STRING",
    "x_SystemLabels": ("REPEATED", KEY_VALUE),
    "x_Labels": ("REPEATED", KEY_VALUE),
    "x_ProjectLabels": ("REPEATED", KEY_VALUE),
    "EffectiveCost": "NUMERIC",
    "x_SubscriptionInstanceId": "STRING",
}
SCHEMA = [
    {"name": n, "type": "RECORD", "mode": t[0], "fields": t[1]}
    if isinstance(t, tuple)
    else {"name": n, "type": t, "mode": "NULLABLE"}
    for n, t in COLUMNS.items()
]


def _time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC)


def _money(value: float) -> Decimal:
    return Decimal(repr(value))


def _pacific_month(month: str, months_on: int = 0) -> datetime:
    year, number = int(month[:4]), int(month[4:]) + months_on
    year, number = year + (number - 1) // 12, (number - 1) % 12 + 1
    return datetime(year, number, 1, tzinfo=PACIFIC).astimezone(UTC)


def _pairs(labels: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{"Key": label["key"], "Value": label["value"]} for label in labels]


def _credit(credit: dict[str, Any]) -> dict[str, Any]:
    return {
        "Name": credit["name"],
        "Amount": _money(credit["amount"]),
        "FullName": credit["full_name"],
        "Id": credit["id"],
        "Type": credit["type"],
    }


def focus_row(row: dict[str, Any]) -> dict[str, Any]:
    """One detailed-export row as the FOCUS export's row."""
    regular = row["cost_type"] == "regular"
    sku = row["sku"]["description"]
    cost = _money(row["cost"])
    billed = cost + sum((_money(c["amount"]) for c in row["credits"]), Decimal(0))
    cud = any(c["type"].startswith("COMMITTED_USAGE_DISCOUNT") for c in row["credits"])
    commitment = sku.lower().startswith("commitment")
    resource = row.get("resource") or {}
    return {
        "AvailabilityZone": row["location"]["zone"],
        "BilledCost": billed,
        "BillingAccountId": row["billing_account_id"],
        "BillingCurrency": row["currency"],
        "BillingPeriodStart": _pacific_month(row["invoice"]["month"]),
        "BillingPeriodEnd": _pacific_month(row["invoice"]["month"], 1),
        "ChargeCategory": "Purchase" if commitment else CATEGORIES[row["cost_type"]],
        "ChargeClass": None,  # the month's correction corrects this month: FOCUS 1.2 leaves it empty
        "ChargeDescription": sku,
        "ChargePeriodStart": _time(row["usage_start_time"]),
        "ChargePeriodEnd": _time(row["usage_end_time"]),
        "ConsumedQuantity": _money(row["usage"]["amount"]) if regular else None,
        "ConsumedUnit": row["usage"]["unit"] if regular else None,
        "ContractedCost": cost,
        "ListCost": _money(row["cost_at_list"]) if "cost_at_list" in row else None,
        "PricingCategory": ("Committed" if commitment or cud else "Standard") if regular else None,
        "ProviderName": "Google Cloud",
        "PublisherName": "Google Cloud",
        "RegionId": row["location"]["region"],
        "ResourceId": resource.get("global_name"),
        "ResourceName": resource.get("name"),
        "ServiceName": row["service"]["description"],
        "SkuId": row["sku"]["id"] if regular else None,
        "SubAccountId": row["project"]["id"],
        "SubAccountName": row["project"]["name"],
        "x_Credits": [_credit(c) for c in row["credits"]],
        "x_CostType": row["cost_type"],
        "x_CurrencyConversionRate": row["currency_conversion_rate"],
        "x_ExportTime": _time(row["export_time"]),
        "x_Location": row["location"]["location"],
        "x_Project": {
            "Id": row["project"]["id"],
            "Number": row["project"]["number"],
            "Name": row["project"]["name"],
        },
        "x_ServiceId": row["service"]["id"],
        "x_SystemLabels": _pairs(row["system_labels"]),
        "x_Labels": _pairs(row["labels"]),
        "x_ProjectLabels": _pairs(row["project"]["labels"]),
        "EffectiveCost": billed,
        "x_SubscriptionInstanceId": (row.get("subscription") or {}).get("instance_id"),
    }


def focus_rows() -> list[dict[str, Any]]:
    return [focus_row(r) for r in gcp_month.month_rows()]


def invoice_month(row: dict[str, Any]) -> str:
    """The Pacific month a FOCUS row's billing period is (for the BigQuery fake's @invoice_month)."""
    return row["BillingPeriodStart"].astimezone(PACIFIC).strftime("%Y%m")


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S UTC")
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return value


def write_jsonl(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({k: _json_value(v) for k, v in r.items() if v is not None}) for r in focus_rows()]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


ARROW = {
    "STRING": pa.string(),
    "NUMERIC": pa.decimal128(38, 9),
    "TIMESTAMP": pa.timestamp("us", tz="UTC"),
    "FLOAT64": pa.float64(),
}


def _arrow_type(field: dict[str, Any]) -> pa.DataType:
    if field["type"] == "RECORD":
        record = pa.struct([pa.field(f["name"], _arrow_type(f)) for f in field["fields"]])
        return pa.list_(record) if field["mode"] == "REPEATED" else record
    return ARROW[field["type"]]


def write_parquet(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([pa.field(f["name"], _arrow_type(f)) for f in SCHEMA])
    pq.write_table(pa.Table.from_pylist(focus_rows(), schema=schema), path)
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON Lines file read back with json, money as the Decimal of its text."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def billed_total(path: Path) -> Decimal:
    return sum((Decimal(r["BilledCost"]) for r in read_jsonl(path)), Decimal(0))
