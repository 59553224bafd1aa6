"""Realized cost by any dimension (polars over allocations pre-grouped in DuckDB)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import polars as pl

from trainledger.errors import TrainledgerError
from trainledger.warehouse import Connection

# CLI dimension name -> allocations column.
DIMENSIONS = {
    "project": "project",
    "phase": "phase",
    "method": "method",
    "experiment": "experiment_id",
    "experiment_id": "experiment_id",
    "category": "cost_category",
    "cost_category": "cost_category",
    "rule": "rule",
    "provider": "provider",
    "service": "service_name",
    "service_name": "service_name",
    "account": "billing_account_id",
    "billing_account_id": "billing_account_id",
    "sub_account": "sub_account_id",
    "sub_account_id": "sub_account_id",
    "period": "billing_period",
    "billing_period": "billing_period",
    "charge_category": "charge_category",
    "pricing_category": "pricing_category",
}
GRANULARITIES = {"hour": "hour", "day": "day", "month": "month"}
MONEY = ("billed_cost", "effective_cost", "list_cost")


def parse_dimensions(text: str | None) -> list[str]:
    names = [d.strip().lower() for d in (text or "").split(",") if d.strip()]
    unknown = [n for n in names if n not in DIMENSIONS]
    if unknown:
        known = ", ".join(sorted({k for k in DIMENSIONS if "_" not in k}))
        raise TrainledgerError(f"unknown dimension {unknown[0]!r} for --by (known: {known})")
    columns: list[str] = []
    for name in names:
        if DIMENSIONS[name] not in columns:
            columns.append(DIMENSIONS[name])
    return columns


def cost_frame(
    con: Connection,
    columns: list[str],
    granularity: str | None = None,
    since: date | None = None,
    until: date | None = None,
    where: dict[str, str] | None = None,
) -> pl.DataFrame:
    """Allocations summed by ``columns`` (+ time bucket, + currency, never mixed), money as Decimal."""
    keys = list(columns)
    select = [f'"{c}"' for c in keys]
    if granularity:
        select.append(f"date_trunc('{GRANULARITIES[granularity]}', charge_period_start) AS period_start")
        keys.append("period_start")
    select.append("currency")
    keys.append("currency")
    conditions = ["TRUE"]
    params: dict[str, object] = {}
    if since:
        conditions.append("charge_period_end > $since")
        params["since"] = since
    if until:
        conditions.append("charge_period_start < $until")
        params["until"] = until
    for i, (column, value) in enumerate((where or {}).items()):
        conditions.append(f'"{column}" = $w{i}')
        params[f"w{i}"] = value
    sql = (
        f"SELECT {', '.join(select)}, sum(billed_cost) AS billed_cost, sum(effective_cost) AS effective_cost, "
        f"sum(list_cost) AS list_cost FROM allocations WHERE {' AND '.join(conditions)} "
        f"GROUP BY ALL ORDER BY ALL"
    )
    frame = con.sql(sql, params=params).pl() if params else con.sql(sql).pl()
    return frame.with_columns(pl.col(m).cast(pl.Decimal(38, 12)) for m in MONEY)


def total(frame: pl.DataFrame, column: str = "effective_cost") -> Decimal:
    value = frame.select(pl.col(column).sum()).item() if frame.height else None
    return Decimal(value) if value is not None else Decimal(0)
