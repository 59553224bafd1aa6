"""Exact money in polars frames: the warehouse's DECIMAL(38, 12) as ``pl.Decimal(38, 12)``, and quotients
rounded half-even at the places they are shown, computed on the decimals' integers (never through floats).

polars loads only with the modules that compare or hand out frames (`reconcile`, the site, the Python
API); the commands that do not compare never import this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    """Python rows (Decimal money) as a frame of ``schema``, built a column at a time."""
    columns = list(zip(*rows, strict=True)) or [() for _ in schema]
    return pl.DataFrame(
        [
            _series(name, list(values), kind)
            for (name, kind), values in zip(schema.items(), columns, strict=True)
        ]
    )


def _series(name: str, values: list[Any], kind: Any) -> pl.Series:
    """A column of Python values: decimals through pyarrow, which converts them several times faster than
    polars; a value with more places than the column, which pyarrow refuses, through polars, which
    rounds it to the column's places (an estimator's GPU hours, rounded to 0.01 afterwards)."""
    import pyarrow as pa

    if isinstance(kind, pl.Decimal):
        try:
            found = pl.from_arrow(pa.array(values, pa.decimal128(kind.precision or 38, kind.scale)))
        except pa.ArrowInvalid:
            return pl.Series(name, values, kind)
        assert isinstance(found, pl.Series)
        return found.alias(name)
    return pl.Series(name, values, kind)


def tuples(found: pl.DataFrame) -> Iterator[tuple[Any, ...]]:
    """The rows of ``found`` as tuples, converted a column at a time: ``iter_rows`` converts row by row,
    several times slower over the tens of thousands of rows a large month's site reads back."""
    return zip(*(_values(column) for column in found.iter_columns()), strict=True)


def _values(column: pl.Series) -> list[Any]:
    """A column as Python values; decimals made from their text (as polars makes them, with the column's
    places), without polars' Python call per value."""
    if isinstance(column.dtype, pl.Decimal):
        return [None if text is None else Decimal(text) for text in column.cast(pl.String).to_list()]
    return column.to_list()


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
