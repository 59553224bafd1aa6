"""GPU prices from the warehouse's ``prices`` table, written by the ``gcp-catalog`` source when configured.

The table's exact columns belong to that connector; this reader needs a GPU-type column and a per-GPU-hour
price column (names below) and uses currency, region, usage type and fetch date when present. Only
on-demand rows count. Several regions at different prices: the highest is used and the spread is said,
unless the experiment names its region.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainledger.estimate.gpus import canonical_gpu

if TYPE_CHECKING:
    from trainledger.warehouse.connection import Connection

GPU_COLUMNS = ("gpu_type", "gpu", "accelerator_type", "accelerator")
PRICE_COLUMNS = ("price_per_gpu_hour", "price_per_hour", "unit_price", "price")
OPTIONAL = {
    "currency": ("currency", "currency_code"),
    "region": ("region", "region_id"),
    "usage_type": ("usage_type", "pricing_category"),
    "fetched_at": ("fetched_at", "fetched_on", "as_of", "effective_time"),
    "sku": ("sku_id", "sku"),
}
ON_DEMAND = {"ondemand", "on-demand", "on_demand", "standard"}


@dataclass(frozen=True)
class CatalogPrice:
    gpu: str
    price_per_gpu_hour: Decimal
    currency: str
    source: str


class Catalog:
    """Per-GPU-hour prices by canonical GPU type, read once from the warehouse."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    @classmethod
    def from_warehouse(cls, con: Connection) -> Catalog | None:
        from trainledger.warehouse.connection import rows, run  # DuckDB: not needed by `estimate --help`

        columns = {name.lower(): name for (name,) in run(con, "estimate/price_columns").fetchall()}
        gpu = next((columns[c] for c in GPU_COLUMNS if c in columns), None)
        price = next((columns[c] for c in PRICE_COLUMNS if c in columns), None)
        if not gpu or not price:
            return None
        picked = {"gpu": gpu, "price": price}
        for key, names in OPTIONAL.items():
            match = next((columns[c] for c in names if c in columns), None)
            if match:
                picked[key] = match
        return cls(
            [
                {key: row[column] for key, column in picked.items()}
                for row in rows(con, "estimate/prices")
                if row[gpu] is not None and row[price] is not None
            ]
        )

    def price(self, gpu: str, region: str | None = None) -> CatalogPrice | None:
        rows = [
            r
            for r in self.rows
            if canonical_gpu(str(r["gpu"])) == gpu
            and str(r.get("usage_type") or "ondemand").lower() in ON_DEMAND
        ]
        if region:
            in_region = [r for r in rows if str(r.get("region") or "").lower() == region.lower()]
            rows = in_region or rows
        if not rows:
            return None
        prices = sorted(Decimal(str(r["price"])) for r in rows)
        chosen = max(rows, key=lambda r: Decimal(str(r["price"])))
        where = f"region {chosen['region']}" if chosen.get("region") else "no region given"
        spread = (
            f"; {len(rows)} rows from {prices[0]:f} to {prices[-1]:f}, highest used (set params.region to choose)"
            if prices[0] != prices[-1]
            else ""
        )
        fetched = f", fetched {chosen['fetched_at']}" if chosen.get("fetched_at") else ""
        sku = f" SKU {chosen['sku']}" if chosen.get("sku") else ""
        return CatalogPrice(
            gpu,
            prices[-1],
            str(chosen.get("currency") or "USD").upper(),
            f"GCP Cloud Catalog{sku} ({where}{fetched}; GPU only, the host VM is billed apart){spread}",
        )
