"""The shape of spend (`report --shape`): per group, the peak bucket, the average bucket and their ratio,
and GPU hours in use vs provisioned where the experiment log tells them.

Buckets are hours, or days when every charge in scope is a day or longer (daily-only exports). Only
charges no longer than a bucket are time-resolved; longer ones (monthly tax, fees, credits) would pile
into one bucket and fake a peak, so they are left out and their amount is reported. The average is the
group's time-resolved spend over every bucket from its first to its last, idle buckets included.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.core.money import fmt
from trainledger.reports import realize
from trainledger.warehouse.connection import Connection, rows, run

BUCKET_SECONDS = {"hour": 3600, "day": 86400}
FORMATS = {"hour": "%Y-%m-%dT%H:00:00Z", "day": "%Y-%m-%d"}


@dataclass
class ShapeRow:
    keys: dict[str, Any]
    currency: str
    buckets: int
    peak: Decimal
    peak_at: str
    average: Decimal
    unresolved: Decimal

    @property
    def ratio(self) -> Decimal | None:
        return (self.peak / self.average).quantize(Decimal("0.01"), ROUND_HALF_EVEN) if self.average else None

    def to_json(self) -> dict[str, Any]:
        return {
            **self.keys,
            "currency": self.currency,
            "buckets": self.buckets,
            "peak": fmt(self.peak),
            "peak_at": self.peak_at,
            "average": fmt(self.average.quantize(Decimal("0.000001"), ROUND_HALF_EVEN)),
            "peak_to_average": None if self.ratio is None else f"{self.ratio:f}",
            "not_time_resolved": fmt(self.unresolved),
        }


def granularity(con: Connection, requested: str | None) -> str:
    if requested in BUCKET_SECONDS:
        return requested
    (shortest,) = run(con, "report/shortest_usage").fetchall()[0]
    return "day" if shortest is not None and shortest >= 86400 else "hour"


def shape(
    con: Connection,
    columns: list[str],
    requested: str | None = None,
    since: date | None = None,
    until: date | None = None,
    where: dict[str, str] | None = None,
) -> tuple[str, list[ShapeRow]]:
    unit = granularity(con, requested)
    seconds = BUCKET_SECONDS[unit]
    bucket_headers, bucketed = realize.cost_rows(con, columns, unit, since, until, where, max_seconds=seconds)
    headers, everything = realize.cost_rows(con, columns, None, since, until, where)
    keys = [*columns, "currency"]
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}  # in the order of their first bucket
    for values in bucketed:
        row = dict(zip(bucket_headers, values, strict=True))
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    resolved_totals = {
        key: sum((Decimal(r["effective_cost"]) for r in part if r["effective_cost"] is not None), Decimal(0))
        for key, part in groups.items()
    }
    out = []
    for group, part in groups.items():
        spend = [(r[unit], Decimal(r["effective_cost"])) for r in part]
        first, last = (datetime.strptime(label, FORMATS[unit]) for label in (spend[0][0], spend[-1][0]))
        buckets = int((last - first) / timedelta(seconds=seconds)) + 1
        peak_at, peak = max(spend, key=lambda item: (item[1], item[0]))
        total = sum((s for _, s in spend), Decimal(0))
        out.append(
            ShapeRow(
                dict(zip(columns, group[:-1], strict=True)),
                str(group[-1]),
                buckets,
                peak,
                peak_at,
                total / buckets,
                Decimal(0),
            )
        )
    by_key = {(*r.keys.values(), r.currency): r for r in out}
    for r in (dict(zip(headers, values, strict=True)) for values in everything):
        key = tuple(r[k] for k in keys)
        unresolved = Decimal(r["effective_cost"]) - resolved_totals.get(key, Decimal(0))
        if key in by_key:
            by_key[key].unresolved = unresolved
    out.sort(key=lambda r: (*((v is None, str(v)) for v in r.keys.values()), r.currency))
    return unit, out


def gpu_hours(con: Connection) -> list[dict[str, Any]]:
    """GPU hours in use (log) vs provisioned (billed hours of the same resources x GPUs), by project/method."""
    return rows(con, "report/gpu_hours")
