"""Cloud Billing export (standard or detailed), from BigQuery or from the same rows exported as files: what
a row of it is (the paths read, the queries), loaded as every append-only Google export is
(:mod:`gcp_export`).

Money is ``cost``, ``cost_at_list`` and each credit's ``amount`` (FLOAT in BigQuery: a double's shortest
text is the value as written); a row's BilledCost is its cost plus its credits, as Google's invoice charges.
"""

from __future__ import annotations

from trainledger.connectors import IngestResult, gcp_export
from trainledger.connectors.contract import Example
from trainledger.connectors.gcp_flat import Export
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

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
TEXT_KEPT = ("cost", "cost_at_list", "usage_start_time", "usage_end_time", "export_time")
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
    "ingest/gcp_billing_money",
    ("cost", "cost_at_list", "credits.amount"),
)


# The keys of every Google export: ``table`` (BigQuery) or ``uri`` (its rows as parquet / JSON Lines, gs://).
Options = gcp_export.Options


EXAMPLE = Example(
    "gs://my-billing-bucket/billing/",
    "GCP Cloud Billing export: its rows as parquet / JSON Lines, or the BigQuery table",
    ('# table = "my-project.billing.gcp_billing_export_resource_v1_XXXXXX"  # instead of uri',),
)


def pull(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    return gcp_export.pull(con, source, config, period, reporter, BILLING)
