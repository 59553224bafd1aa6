"""Realized cost by any dimension (polars over allocations pre-grouped in DuckDB).

Time: a charge (or a time segment of one) counts in the hour, day or month its period starts, and
``since``/``until`` keep the allocations that start in ``[since, until)``, so consecutive ranges add up to
the whole without counting a month-long charge (tax, credits, fees) twice. Buckets are UTC.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import polars as pl

from trainledger.attribution import waste
from trainledger.core import queries
from trainledger.core.errors import TrainledgerError
from trainledger.warehouse.connection import Connection

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
    "waste": "waste",
    "commitment": "commitment",
}
# What a dimension's values are, where its name does not say (shown in `--by`'s help).
DIMENSION_VALUES = {"waste": ", ".join(waste.CLASSES)}
# Granularity -> (date_trunc unit, label format): ISO 8601, UTC, so text order is time order.
GRANULARITIES = {
    "hour": ("hour", "%Y-%m-%dT%H:00:00Z"),
    "day": ("day", "%Y-%m-%d"),
    "month": ("month", "%Y-%m"),
}
MONEY = ("billed_cost", "effective_cost", "list_cost")
# Time buckets `cost_sets` can group by like dimensions: the UTC day, and the week from its Monday.
BUCKETS = {
    "day": "strftime(date_trunc('day', charge_period_start), '%Y-%m-%d')",
    "week": "strftime(date_trunc('week', charge_period_start), '%Y-%m-%d')",
}


def dimension_names() -> list[str]:
    """One ``--by`` name per column, in ``DIMENSIONS`` order (the aliases after the first left out)."""
    first: dict[str, str] = {}
    for name, column in DIMENSIONS.items():
        first.setdefault(column, name)
    return list(first.values())


def dimension_help() -> str:
    """The ``--by`` help: every dimension, derived from ``DIMENSIONS``."""
    shown = [f"{n} ({DIMENSION_VALUES[n]})" if n in DIMENSION_VALUES else n for n in dimension_names()]
    return f"Comma-separated dimensions: {', '.join(shown)}."


def parse_dimensions(text: str | None) -> list[str]:
    names = [d.strip().lower() for d in (text or "").split(",") if d.strip()]
    unknown = [n for n in names if n not in DIMENSIONS]
    if unknown:
        known = ", ".join(sorted(dimension_names()))
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
    max_seconds: int | None = None,
) -> pl.DataFrame:
    """Allocations summed by (time bucket named after ``granularity``, first) + ``columns`` + currency
    (never mixed), money as Decimal; ``max_seconds`` keeps only charges no longer than that."""
    params: dict[str, object] = {}
    if "waste" in columns:
        params.update(waste.outcomes(con).params())
    bounds = {"since": since, "until": until, "max_seconds": max_seconds}
    params.update((name, value) for name, value in bounds.items() if value is not None)
    params.update((f"w{i}", value) for i, value in enumerate((where or {}).values()))
    sql = cost_query(columns, granularity, [n for n in bounds if n in params], list(where or {}))
    frame = con.sql(sql, params=params).pl() if params else con.sql(sql).pl()
    return frame.with_columns(pl.col(m).cast(pl.Decimal(38, 12)) for m in MONEY)


# The one place where Python composes SQL (`report --by`, `export --by`): column names from the allow-list
# below and fixed fragments only; every value goes in as a parameter.
COLUMNS = {*DIMENSIONS.values(), "currency"}
BOUNDS = {
    "since": "charge_period_start >= $since",
    "until": "charge_period_start < $until",
    "max_seconds": "epoch(charge_period_end) - epoch(charge_period_start) <= $max_seconds",
}


def _column(name: str) -> str:
    if name not in COLUMNS:
        raise ValueError(f"{name!r} is not a dimension of allocations")
    return f'"{name}"'


def cost_query(columns: list[str], granularity: str | None, bounds: list[str], equal: list[str]) -> str:
    """``report/cost_by`` for these columns, with the ``bounds`` conditions ($since, $until, $max_seconds)
    and one equality per column of ``equal`` ($w0, $w1, ...)."""
    select = []
    if granularity:
        unit, label = GRANULARITIES[granularity]
        select.append(f"strftime(date_trunc('{unit}', charge_period_start), '{label}') AS \"{granularity}\"")
    select.extend(_column(c) for c in columns)
    select.append("currency")
    conditions = [
        "TRUE",
        *(BOUNDS[b] for b in bounds),
        *(f"{_column(c)} = $w{i}" for i, c in enumerate(equal)),
    ]
    return (
        queries.load("report/cost_by")
        .replace("/*dimensions*/", ", ".join(select))
        .replace("/*conditions*/", " AND ".join(conditions))
        .replace("/*allocations*/", _source(columns))
    )


def _source(columns: list[str]) -> str:
    """The allocations, with the derived columns among ``columns`` (waste, commitment, time buckets)."""
    source = "allocations"
    if "waste" in columns:
        source = f"({queries.load('report/waste_allocations')}) AS allocations"
    if "commitment" in columns:
        source = (
            f"(SELECT *, {_expression('report/commitment_class')} AS commitment FROM {source}) AS allocations"
        )
    buckets = [f'{BUCKETS[c]} AS "{c}"' for c in columns if c in BUCKETS]
    if buckets:
        source = f"(SELECT *, {', '.join(buckets)} FROM {source}) AS allocations"
    return source


Set = tuple[str, ...]


def cost_sets(con: Connection, sets: list[Set]) -> dict[Set, list[dict[str, Any]]]:
    """Allocations summed by each set of columns (+ currency) in one pass (``report/cost_by_sets``);
    per set, rows of its columns, currency and money (Decimal), the sums ``report --by`` those columns
    gives (a set may use the time buckets of BUCKETS too)."""
    columns = list(dict.fromkeys(c for s in sets for c in s))
    sql = sets_query(sets)
    params = waste.outcomes(con).params() if "waste" in columns else {}
    bit = {c: 1 << (len(columns) - 1 - i) for i, c in enumerate(columns)}
    masks = {sum(bit[c] for c in columns if c not in s): s for s in sets}
    out: dict[Set, list[dict[str, Any]]] = {s: [] for s in sets}
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description or []]
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        kept = masks[row["grouping_set"]]
        out[kept].append(
            {**{c: row[c] for c in kept}, "currency": row["currency"], **{m: row[m] for m in MONEY}}
        )
    return out


def sets_query(sets: list[Set]) -> str:
    """``report/cost_by_sets`` composed for ``sets`` (their columns from the allow-list)."""
    columns = list(dict.fromkeys(c for s in sets for c in s))
    grouping = ", ".join(f"({', '.join([*map(_name, s), 'currency'])})" for s in sets)
    return (
        queries.load("report/cost_by_sets")
        .replace("/*dimensions*/", ", ".join(map(_name, columns)))
        .replace("/*allocations*/", _source(columns))
        .replace("/*sets*/", grouping)
    )


def _name(column: str) -> str:
    return f'"{column}"' if column in BUCKETS else _column(column)


def export_query(columns: list[str], kept: set[str]) -> str:
    """``export/allocations`` with ``columns`` in order, those not ``kept`` empty (summed over)."""
    select = ", ".join(_column(c) if c in kept else f"NULL AS {_column(c)}" for c in columns)
    return queries.load("export/allocations").replace("/*dimensions*/", select)


def _expression(name: str) -> str:
    """A query file that holds one SQL expression, without its header comment."""
    return "\n".join(line for line in queries.load(name).splitlines() if not line.startswith("--"))


def total(frame: pl.DataFrame, column: str = "effective_cost") -> Decimal:
    value = frame.select(pl.col(column).sum()).item() if frame.height else None
    return Decimal(value) if value is not None else Decimal(0)
