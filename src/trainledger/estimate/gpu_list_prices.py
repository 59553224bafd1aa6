"""GPU list prices from the warehouse's ``prices`` table, written by the ``gcp-catalog`` source.

Only on-demand, per-hour, first-tier GPU SKUs count (``estimate/prices``). Several regions at different
prices: the highest is used and the spread is said, unless the experiment names its region.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainledger.estimate.gpus import canonical_gpu

if TYPE_CHECKING:
    from trainledger.warehouse.connection import Connection

ON_DEMAND = {"ondemand", "on-demand", "on_demand", "standard"}


@dataclass(frozen=True)
class CatalogPrice:
    gpu: str
    price_per_gpu_hour: Decimal
    currency: str
    source: str


class GpuListPrices:
    """Per-GPU-hour prices by canonical GPU type, read once from the warehouse."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    @classmethod
    def from_warehouse(cls, con: Connection) -> GpuListPrices | None:
        """None when the warehouse has no price sheet or it holds no GPU price (gcp-catalog not run)."""
        from trainledger.warehouse.connection import rows, run  # DuckDB: not needed by `estimate --help`

        (exists,) = run(con, "estimate/price_sheet_exists").fetchone() or (0,)
        found = rows(con, "estimate/prices") if exists else []
        return cls(found) if found else None

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
        prices = sorted(_plain(r["price"]) for r in rows)
        chosen = max(rows, key=lambda r: r["price"])
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


def _plain(price: Decimal) -> Decimal:
    """The price without the sheet's trailing zeros (DECIMAL(38, 12)), never in exponent form."""
    return price.quantize(Decimal(1)) if price == price.to_integral_value() else price.normalize()
