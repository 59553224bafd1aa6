"""Exact money in polars frames: the warehouse's DECIMAL(38, 12) as ``pl.Decimal(38, 12)``, and quotients
rounded half-even at the places they are shown, computed on the decimals' integers (never through floats).

polars loads only with the modules that compare or hand out frames (`reconcile`, the site, the Python
API); the commands that do not compare never import this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

import polars as pl

if TYPE_CHECKING:
    import pyarrow as pa

MONEY = pl.Decimal(38, 12)
Schema = Mapping[str, Any]  # column -> polars type


def frame(table: pa.Table | None, schema: Schema) -> pl.DataFrame:
    """An Arrow result as a frame of ``schema`` (names in order, types cast: an engine's sum may come back
    at another scale); an absent result (a statement that returned nothing) is an empty frame."""
    if table is None or table.num_rows == 0:
        return pl.DataFrame(schema=dict(schema))
    found = pl.from_arrow(table.rename_columns(list(schema)))
    assert isinstance(found, pl.DataFrame)
    return found.cast(cast(Any, dict(schema)))


def rows_frame(rows: Iterable[Sequence[Any]], schema: Schema) -> pl.DataFrame:
    """Python rows (Decimal money) as a frame of ``schema``."""
    return pl.DataFrame(list(rows), schema=dict(schema), orient="row")


def integer(value: pl.Expr) -> pl.Expr:
    """A money value's count of 1e-12 units, as a decimal of scale 0 (exact: DECIMAL(38, 12) is that count)."""
    return value.cast(MONEY).to_physical().cast(pl.Decimal(38, 0))


def quotient(numerator: pl.Expr, denominator: pl.Expr, places: int) -> pl.Expr:
    """Two whole numbers' quotient rounded half-even to ``places``, exactly (polars divides the integers and
    rounds half-even at the result's scale); null where the denominator is zero or null. Exact while
    ``|numerator|`` is below 10^(38 - places)."""
    return pl.when(denominator != 0).then(numerator.cast(pl.Decimal(38, places)) / denominator)


def ratio(numerator: pl.Expr, denominator: pl.Expr, places: int) -> pl.Expr:
    """Two money values' ``numerator / denominator`` rounded half-even to ``places``, exactly; null where the
    denominator is zero or null. Exact while ``|numerator|`` is below 10^(26 - places), far beyond any bill
    (ingest refuses 10^26)."""
    return quotient(integer(numerator), integer(denominator), places)


def with_sign(value: Decimal | None, negative: bool) -> Decimal | None:
    """A rounded quotient as Python's Decimal gives it: a zero keeps the quotient's sign ("-0.00", which the
    outputs have always shown for a tiny negative share); polars has no negative zero."""
    return value.copy_negate() if value is not None and negative and not value else value
