"""Cloud Billing Catalog: SKU list prices (tiered, exact) into the ``prices`` table, for the estimator.

The catalog has no cost data, only list prices per SKU: ``list_services`` then ``list_skus`` per service
(all pages), each SKU with tiered rates as google.type.Money (units + nanos, read exactly). The GPU model
is read from the SKU description, so the estimator can price a GPU-hour of an H100 or an A100.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any

from trainledger.connectors import IngestResult, gcp_api, sql_slots
from trainledger.connectors.contract import Example
from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

# Catalog services whose SKUs are kept: GPUs, host VMs and disks of training jobs are billed under
# Compute Engine (Vertex AI training under Vertex AI).
SERVICES = ("Compute Engine", "Vertex AI")

# Most specific first: "GB200" before "B200", "H100" before a bare "100".
GPU_MODELS = ("GB200", "B200", "H200", "H100", "A100", "L40S", "L4", "T4", "V100", "P100", "P4", "K80")
_GPU = re.compile(r"\b(" + "|".join(GPU_MODELS) + r")\b")


def gpu_type(description: str) -> str | None:
    """The GPU model a SKU description names (``Nvidia Tesla A100 GPU running in Americas`` → ``A100``)."""
    if "gpu" not in description.lower():
        return None
    match = _GPU.search(description.upper())
    return match.group(1) if match else None


def money(units: int, nanos: int) -> Decimal:
    """google.type.Money as an exact Decimal (units and nanos carry the same sign)."""
    return Decimal(units) + Decimal(nanos).scaleb(-9)


def _rows(source: str, service: Any, sku: Any, fetched_at: datetime) -> list[tuple[Any, ...]]:
    if not sku.pricing_info:
        return []
    info = max(sku.pricing_info, key=lambda p: p.effective_time or datetime.min.replace(tzinfo=UTC))
    expression = info.pricing_expression
    effective = info.effective_time.astimezone(UTC).replace(tzinfo=None) if info.effective_time else None
    rows = []
    for tier in expression.tiered_rates:
        price = tier.unit_price
        rows.append(
            (
                "gcp",
                source,
                service.display_name,
                sku.sku_id,
                sku.description,
                sku.category.resource_group or None,
                sku.category.usage_type or None,
                gpu_type(sku.description),
                list(sku.service_regions),
                expression.usage_unit,
                expression.usage_unit_description or None,
                Decimal(repr(tier.start_usage_amount)),
                price.currency_code or "USD",
                money(price.units, price.nanos),
                effective,
                fetched_at,
            )
        )
    return rows


Options = gcp_api.GcpOptions
EXAMPLE = Example(None, "GCP list prices of GPUs for the estimator")


def _skus(client: Any, service: str, timeout: float) -> list[Any]:
    """Every SKU of a service, all pages (one attempt of :func:`gcp_api.bounded`)."""
    return list(client.list_skus(parent=service, timeout=timeout, retry=None))


def pull(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    from google.cloud import billing_v1

    fetched_at = datetime.now(UTC).replace(tzinfo=None)
    rows: list[tuple[Any, ...]] = []
    try:
        client = billing_v1.CloudCatalogClient(transport="rest", **gcp_api.client_kwargs(source))
        services = gcp_api.bounded(
            source,
            lambda timeout: [
                s for s in client.list_services(timeout=timeout, retry=None) if s.display_name in SERVICES
            ],
        )
        for service in services:
            reporter.step(f"{source.name}: reading {service.display_name} SKUs")
            skus = gcp_api.bounded(
                source,
                partial(_skus, client, service.name),
            )
            for sku in skus:
                rows.extend(_rows(source.name, service, sku, fetched_at))
    except gcp_api.api_errors() as exc:
        hints = {
            "permission denied": "enable the Cloud Billing API (cloudbilling.googleapis.com) for the project"
        }
        raise gcp_api.source_error(source, exc, "reading the Cloud Billing Catalog", hints) from None
    sql_slots.run_filled(con, "ingest/delete_prices", {"source": source.name})
    if rows:
        con.executemany(queries.load("ingest/insert_price"), rows)
    gpus = sum(1 for r in rows if r[7] is not None)
    reporter.detail(f"{source.name}: {len(rows)} price(s), {gpus} for GPUs")
    return [IngestResult(source.name, None, len(rows), version=fetched_at.isoformat())]
