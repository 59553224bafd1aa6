"""Google's FOCUS export (Preview): BigQuery table ``gcp_billing_export_focus_<ACCOUNT>`` in the
Google-managed dataset ``gcp_billing_immutable_<ACCOUNT>_<location>``, or its rows exported as files.

Google documents it as an immutable table whose columns map to the detailed export's fields
(cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/focus-export). It is loaded the way the
detailed export is (:mod:`gcp_export`): rows are appended with a growing ``x_ExportTime``, a correction is
new rows, so a pull reads what was exported since the watermark and appends the rows it has not seen (a
row's identity is a hash of its content). Only the columns and the normalising query differ.

Columns, as a live table's INFORMATION_SCHEMA lists them (etiennechabert/cost-goblin,
scripts/gcp-focus-exporter/export-focus.test.mjs, ``LIVE_COLUMNS``): FOCUS 1.2 names for the FOCUS columns
(``BilledCost`` NUMERIC, ``ChargePeriodStart`` TIMESTAMP, ...), and Google's own as ``x_``:
``x_Credits`` ARRAY<STRUCT<Name, Amount NUMERIC, FullName, Id, Type>>, ``x_CostType``, ``x_ExportTime``,
``x_Project`` STRUCT<Id, Number, Name, ...>, ``x_Labels`` / ``x_ProjectLabels`` / ``x_SystemLabels``
ARRAY<STRUCT<Key, Value>>, ``x_Tags`` (resource-manager tags), ``x_SubscriptionInstanceId``. There is no
``Tags`` column: labels are the ``x_`` lists, merged into tags as gcp-billing merges labels. Credits are
not rows of their own: Google's FOCUS view over the detailed export (the published template) makes
BilledCost = EffectiveCost = cost + Σ credits.amount and lists the credits in ``x_Credits``; BilledCost is
taken as Google gives it, and ``x_Credits`` kept in ``charges.credits``.
"""

from __future__ import annotations

from trainledger.connectors import IngestResult, gcp_export
from trainledger.connectors.contract import Example
from trainledger.connectors.gcp_flat import Export
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

KEY_VALUE = {"key": "text", "value": "text"}
FOCUS = Export(
    kind="gcp-focus",
    what="Google FOCUS export",
    fields={
        "billing_account_id": ("BillingAccountId", "text"),
        "sub_account_id": ("SubAccountId", "text"),
        "billed_cost": ("BilledCost", "decimal"),
        "effective_cost": ("EffectiveCost", "decimal"),
        "list_cost": ("ListCost", "decimal"),
        "contracted_cost": ("ContractedCost", "decimal"),
        "billing_currency": ("BillingCurrency", "text"),
        "billing_period_start": ("BillingPeriodStart", "time"),
        "billing_period_end": ("BillingPeriodEnd", "time"),
        "charge_period_start": ("ChargePeriodStart", "time"),
        "charge_period_end": ("ChargePeriodEnd", "time"),
        "charge_category": ("ChargeCategory", "text"),
        "charge_class": ("ChargeClass", "text"),
        "charge_description": ("ChargeDescription", "text"),
        "consumed_quantity": ("ConsumedQuantity", "decimal"),
        "consumed_unit": ("ConsumedUnit", "text"),
        "pricing_category": ("PricingCategory", "text"),
        "region_id": ("RegionId", "text"),
        "resource_id": ("ResourceId", "text"),
        "resource_name": ("ResourceName", "text"),
        "resource_type": ("ResourceType", "text"),
        "service_name": ("ServiceName", "text"),
        "service_category": ("ServiceCategory", "text"),
        "sku_id": ("SkuId", "text"),
        "commitment_discount_id": ("CommitmentDiscountId", "text"),
        "invoice_id": ("InvoiceId", "text"),
        "cost_type": ("x_CostType", "text"),
        "currency_conversion_rate": ("x_CurrencyConversionRate", "double"),
        "export_time": ("x_ExportTime", "time"),
        "location": ("x_Location", "text"),
        "service_id": ("x_ServiceId", "text"),
        "project_id": ("x_Project.Id", "text"),
        "project_number": ("x_Project.Number", "text"),
        "subscription_instance_id": ("x_SubscriptionInstanceId", "text"),
    },
    lists={
        "labels": ("x_Labels", KEY_VALUE),
        "project_labels": ("x_ProjectLabels", KEY_VALUE),
        "system_labels": ("x_SystemLabels", KEY_VALUE),
        "credits": (
            "x_Credits",
            {"name": "text", "amount": "decimal", "fullname": "text", "id": "text", "type": "text"},
        ),
    },
    required=(
        "BilledCost",
        "BillingCurrency",
        "BillingPeriodStart",
        "BillingPeriodEnd",
        "ChargeCategory",
        "ChargePeriodStart",
        "ChargePeriodEnd",
        "x_ExportTime",
    ),
    text_kept=(
        "billed_cost",
        "effective_cost",
        "list_cost",
        "contracted_cost",
        "billing_period_start",
        "billing_period_end",
        "charge_period_start",
        "charge_period_end",
        "export_time",
    ),
    bigquery="ingest/bigquery_focus_rows",
    validate="ingest/validate_gcp_focus",
    normalize="ingest/normalize_gcp_focus",
    tables="gcp_billing_export_focus_<ACCOUNT>, in dataset gcp_billing_immutable_<ACCOUNT>_<location>",
    example="my-project.gcp_billing_immutable_0A1B2C_3D4E5F_6A7B8C_us.gcp_billing_export_focus_0A1B2C_3D4E5F_6A7B8C",
    money="ingest/gcp_focus_money",
    money_columns=("BilledCost", "EffectiveCost", "ListCost", "ContractedCost"),
)


# The keys of gcp-billing: ``table`` (the FOCUS table) or ``uri`` (its rows as parquet / JSON Lines, gs://).
Options = gcp_export.Options


EXAMPLE = Example(
    "gs://my-billing-bucket/focus/",
    "Google's FOCUS export (Preview): its rows as parquet / JSON Lines, or the BigQuery table",
    (
        '# table = "my-project.gcp_billing_immutable_XXXXXX_us.gcp_billing_export_focus_XXXXXX"  # instead of uri',
    ),
)


def pull(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    return gcp_export.pull(con, source, config, period, reporter, FOCUS)
