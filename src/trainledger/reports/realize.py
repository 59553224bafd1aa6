"""Realized cost by any dimension, summed in the warehouse (allocations grouped by DuckDB or Spark).

Time: a charge (or a time segment of one) counts in the hour, day or month its period starts, and
``since``/``until`` keep the allocations that start in ``[since, until)``, so consecutive ranges add up to
the whole without counting a month-long charge (tax, credits, fees) twice. Buckets are UTC.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal, localcontext
from typing import TYPE_CHECKING, Any

from trainledger.attribution import waste
from trainledger.core import queries
from trainledger.reports.dimensions import DIMENSIONS
from trainledger.warehouse.connection import Connection

if TYPE_CHECKING:
    import pyarrow as pa

# Granularity -> (date_trunc unit, label format): ISO 8601, UTC, so text order is time order.
GRANULARITIES = {
    "hour": ("hour", "%Y-%m-%dT%H:00:00Z"),
    "day": ("day", "%Y-%m-%d"),
    "month": ("month", "%Y-%m"),
}
MONEY = ("billed_cost", "effective_cost", "list_cost")
UNIT = Decimal(1).scaleb(-12)
# Time buckets `cost_sets` can group by like dimensions: the UTC day, and the week from its Monday.
BUCKETS = {
    "day": "strftime(date_trunc('day', charge_period_start), '%Y-%m-%d')",
    "week": "strftime(date_trunc('week', charge_period_start), '%Y-%m-%d')",
}


Rows = tuple[list[str], list[tuple[Any, ...]]]  # column names, and the rows


def cost_rows(
    con: Connection,
    columns: list[str],
    granularity: str | None = None,
    since: date | None = None,
    until: date | None = None,
    where: dict[str, str] | None = None,
    max_seconds: int | None = None,
) -> Rows:
    """Allocations summed by (time bucket named after ``granularity``, first) + ``columns`` + currency
    (never mixed), money as Decimal with 12 places; ``max_seconds`` keeps only charges no longer than that.
    Plain rows, not a frame: `report` then needs no polars."""
    result = _costs(con, columns, granularity, since, until, where, max_seconds)
    headers = [d[0] for d in result.description]
    money = [i for i, h in enumerate(headers) if h in MONEY]
    found = result.fetchall()
    with localcontext(prec=38):
        for n, row in enumerate(found):
            if any(row[i] is not None and row[i].as_tuple().exponent != -12 for i in money):
                found[n] = tuple(_places(v) if i in money else v for i, v in enumerate(row))
    return headers, found


def cost_table(
    con: Connection,
    columns: list[str],
    granularity: str | None = None,
    since: date | None = None,
    until: date | None = None,
    where: dict[str, str] | None = None,
) -> pa.Table:
    """``cost_rows``' sums as Arrow, for the Python API's frames (its money columns at 12 places there)."""
    return _costs(con, columns, granularity, since, until, where).to_arrow_table()


def _costs(
    con: Connection,
    columns: list[str],
    granularity: str | None,
    since: date | None,
    until: date | None,
    where: dict[str, str] | None,
    max_seconds: int | None = None,
) -> Any:
    """The ``report/cost_by`` statement for these arguments, run (a DuckDB relation or an engine's result)."""
    params: dict[str, object] = {}
    if "waste" in columns:
        params.update(waste.outcomes(con).params())
    bounds = {"since": since, "until": until, "max_seconds": max_seconds}
    params.update((name, value) for name, value in bounds.items() if value is not None)
    params.update((f"w{i}", value) for i, value in enumerate((where or {}).values()))
    sql = cost_query(
        columns,
        granularity,
        [n for n in bounds if n in params],
        list(where or {}),
        by_day=_by_day(granularity, bounds),
    )
    return con.sql(sql, params=params) if params else con.sql(sql)


def _by_day(granularity: str | None, bounds: dict[str, Any]) -> bool:
    """Whether ``allocation_days`` gives these sums: no hour buckets, no charge length, and bounds that are
    whole days (a day-truncated start is >= or < a midnight exactly when the start is)."""
    if granularity == "hour" or bounds.get("max_seconds") is not None:
        return False
    return all(v is None or (isinstance(v, date) and not isinstance(v, datetime)) for v in bounds.values())


def _places(value: Decimal | None) -> Decimal | None:
    """DECIMAL(38, 12)'s 12 places, whatever scale an engine's sum returned."""
    return None if value is None else value.quantize(UNIT)


# The one place where Python composes SQL (`report --by`, `export --by`): column names from the allow-list
# below and fixed fragments only; every value goes in as a parameter.
COLUMNS = {*DIMENSIONS.values(), "currency", "reason"}  # reason: an input of waste and commitment
BOUNDS = {
    "since": "charge_period_start >= $since",
    "until": "charge_period_start < $until",
    "max_seconds": "epoch(charge_period_end) - epoch(charge_period_start) <= $max_seconds",
}


def _column(name: str) -> str:
    if name not in COLUMNS:
        raise ValueError(f"{name!r} is not a dimension of allocations")
    return f'"{name}"'


def cost_query(
    columns: list[str], granularity: str | None, bounds: list[str], equal: list[str], *, by_day: bool = False
) -> str:
    """``report/cost_by`` for these columns, with the ``bounds`` conditions ($since, $until, $max_seconds)
    and one equality per column of ``equal`` ($w0, $w1, ...); ``by_day``: summed from ``allocation_days``
    (see ``_by_day``), not every allocation."""
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
        .replace("/*allocations*/", _source(columns, "allocation_days" if by_day else "allocations"))
    )


def _source(columns: list[str], table: str = "allocations") -> str:
    """``table`` (the allocations, or rows of them summed alike), with the derived columns among
    ``columns`` (waste, commitment, time buckets), named ``allocations``."""
    source = table
    derived = [f"{_expression(f'report/{c}_class')} AS {c}" for c in ("waste", "commitment") if c in columns]
    derived.extend(f'{BUCKETS[c]} AS "{c}"' for c in columns if c in BUCKETS)
    if derived:
        source = f"(SELECT *, {', '.join(derived)} FROM {source}) AS allocations"
    elif table != "allocations":
        source = f"{table} AS allocations"
    return source


Set = tuple[str, ...]
# The allocation columns a derived dimension is computed from: ``cost_sets`` sums the allocations alike in
# these first (a time bucket is a day or longer, so the day of charge_period_start is all it reads).
INPUTS = {
    "waste": ("rule", "reason", "phase", "experiment_id", "charge_category"),
    "commitment": ("rule", "reason", "pricing_category", "charge_category", "provider"),
    **{bucket: ("charge_period_start",) for bucket in BUCKETS},
}


def _cells(columns: list[str]) -> str:
    """The select list of ``report/cost_by_sets``'s cells: every column the sets read (the view
    ``allocation_days`` holds the day of a charge's start)."""
    inputs = dict.fromkeys(i for c in columns for i in INPUTS.get(c, (c,)))
    return ", ".join("charge_period_start" if i == "charge_period_start" else _column(i) for i in inputs)


def sets_query(sets: list[Set]) -> str:
    """``report/cost_by_sets`` for these sets of columns."""
    columns = list(dict.fromkeys(c for s in sets for c in s))
    grouping = ", ".join(f"({', '.join([*map(_name, s), 'currency'])})" for s in sets)
    return (
        queries.load("report/cost_by_sets")
        .replace("/*cell_columns*/", _cells(columns))
        .replace("/*dimensions*/", ", ".join(map(_name, columns)))
        .replace("/*allocations*/", _source(columns, "cells"))
        .replace("/*sets*/", grouping)
    )


def cost_sets(con: Connection, sets: list[Set]) -> dict[Set, list[dict[str, Any]]]:
    """Allocations summed by each set of columns (+ currency) in one pass (``report/cost_by_sets``);
    per set, rows of its columns, currency and money (Decimal), the sums ``report --by`` those columns
    gives (a set may use the time buckets of BUCKETS too). The allocations are first summed into cells
    alike in every column any set reads (at 10M allocations, about 300K cells), and the sets, the derived
    dimensions and the time buckets computed over the cells: sums are exact, so the order does not matter."""
    columns = list(dict.fromkeys(c for s in sets for c in s))
    params = waste.outcomes(con).params() if "waste" in columns else {}
    bit = {c: 1 << (len(columns) - 1 - i) for i, c in enumerate(columns)}
    masks = {sum(bit[c] for c in columns if c not in s): s for s in sets}
    cursor = con.execute(sets_query(sets), params)
    names = [d[0] for d in cursor.description or []]
    grouping = names.index("grouping_set")
    # Per set (by its grouping bits): its rows, and where each of its keys stands in a result row.
    shapes: dict[int, tuple[list[dict[str, Any]], list[tuple[str, int]]]] = {
        mask: ([], [(k, names.index(k)) for k in (*s, "currency", *MONEY)]) for mask, s in masks.items()
    }
    for values in cursor.fetchall():
        found, keys = shapes[values[grouping]]
        found.append({k: values[i] for k, i in keys})
    return {s: shapes[mask][0] for mask, s in masks.items()}


def _name(column: str) -> str:
    return f'"{column}"' if column in BUCKETS else _column(column)


def export_query(columns: list[str], kept: set[str]) -> str:
    """``export/allocations`` with ``columns`` in order, those not ``kept`` empty (summed over)."""
    select = ", ".join(_column(c) if c in kept else f"NULL AS {_column(c)}" for c in columns)
    return queries.load("export/allocations").replace("/*dimensions*/", select)


def _expression(name: str) -> str:
    """A query file that holds one SQL expression, without its header comment."""
    return "\n".join(line for line in queries.load(name).splitlines() if not line.startswith("--"))
