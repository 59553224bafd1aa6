"""Money read from a bill on Spark exactly as DuckDB's macro ``money`` reads it (``queries/schema/warehouse.sql``).

DuckDB reads a DOUBLE through its shortest round-trip text, the number the provider meant, and rounds it
half-even to 12 places. Spark has no such text: its cast of a DOUBLE to text or DECIMAL goes through Java's
``Double.toString``, which before Java 19 is not always the shortest (2.82879384806159E17 comes out as
2.82879384806159008E17, 8 more than the bill wrote). So on Spark the macros ``money`` and ``money_residue``
are these Python functions (``queries/engines/spark/macros/``), run by the executors as UDFs: Python's
``repr`` of a float is the shortest round-trip text, and ``decimal`` rounds it exactly. The module uses the
standard library only and is shipped to the executors by value, so a cluster needs nothing installed for it.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The text DuckDB's macro takes as a number (money_rounded): sign, digits with at most one point, exponent.
_NUMBER = re.compile(r"[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?")
_EXACT = Context(prec=100_000, Emin=-10_000_000, Emax=10_000_000)  # every digit a bill can write
_UNIT = Decimal("1e-12")
_LIMIT = Decimal("1e26")  # DECIMAL(38, 12) holds less
MONEY = "DECIMAL(38, 12)"
RESIDUE = "STRUCT<places: INT, n: DECIMAL(38, 0)>"
# The UDFs a connector names in the SQL it composes (connectors/gcp_flat.py): a DOUBLE's text as DuckDB
# writes it, and money and text of each value of a list (a Python UDF cannot run inside a Spark lambda).
TEXT = "trainledger_double_text"
MONEY_EACH = "trainledger_money_each"
TEXT_EACH = "trainledger_double_text_each"


def written(value: Any) -> Decimal | None:
    """The number a bill's cell holds, as written: a float's shortest round-trip text, a decimal as it is,
    text when it is a plain or exponent number (trimmed); None for anything else."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, int | Decimal):
        return Decimal(value) if Decimal(value).is_finite() else None
    text = str(value).strip()
    if not _NUMBER.fullmatch(text):
        return None
    exponent = re.search(r"[eE]([+-]?[0-9]+)$", text)
    if exponent and int(exponent.group(1)) < -1_000_000:  # as DuckDB: rounds to 0 whatever it is
        return Decimal(0)
    if exponent and int(exponent.group(1)) > 1_000_000:
        return None
    return Decimal(text)


def money(value: Any) -> Decimal | None:
    """DECIMAL(38, 12) of a bill's value, rounded half-even at the 12th place; None when it is not a number
    below 10^26."""
    number = written(value)
    if number is None or abs(number) >= _LIMIT:
        return None
    try:
        return number.quantize(_UNIT, rounding=ROUND_HALF_EVEN, context=_EXACT)
    except InvalidOperation:
        return None


def residue(value: Any) -> tuple[int, Decimal] | None:
    """What rounding took away (written minus stored) as ``n`` units of 10^-(12 + places), ``places`` the
    fewest that hold it; None when nothing was (the macro money_residue)."""
    number, stored = written(value), money(value)
    if number is None or stored is None:
        return None
    left = _EXACT.subtract(number, stored)
    if left == 0:
        return None
    sign, digits, exponent = left.normalize(_EXACT).as_tuple()
    assert isinstance(exponent, int)
    places = max(-exponent - 12, 0)
    n = int("".join(map(str, digits))) * 10 ** (exponent + 12 + places)
    if n >= 10**38:
        raise ValueError(f"a rounding residue of {len(str(n))} digits beyond DECIMAL(38, 0): {value!r}")
    return places, Decimal(-n if sign else n)


def double_text(value: float | None) -> str | None:
    """A DOUBLE as DuckDB's cast writes it: its shortest round-trip text, Python's ``repr`` (1e-05, nan)."""
    return None if value is None else repr(value)


def money_each(values: list[Any] | None) -> list[Decimal | None] | None:
    return None if values is None else [money(v) for v in values]


def double_text_each(values: list[float | None] | None) -> list[str | None] | None:
    return None if values is None else [double_text(v) for v in values]


def register_by_value(
    spark: SparkSession, module: str, udfs: dict[str, tuple[Callable[..., Any], str]]
) -> None:
    """Each ``name: (function, Spark type)`` as a UDF of the session, its module shipped to the executors by
    value (they need not have trainledger installed)."""
    from pyspark import cloudpickle
    from pyspark.sql.functions import udf

    cloudpickle.register_pickle_by_value(sys.modules[module])
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # pyspark reads the (postponed) type hints as a pandas UDF's, and warns
        for name, (function, kind) in udfs.items():
            spark.udf.register(name, udf(function, kind))


def register(spark: SparkSession) -> None:
    """The UDFs ``trainledger_money``, ``trainledger_money_residue`` and those named above in the session."""
    register_by_value(
        spark,
        __name__,
        {
            "trainledger_money": (money, MONEY),
            "trainledger_money_residue": (residue, RESIDUE),
            TEXT: (double_text, "STRING"),
            MONEY_EACH: (money_each, f"ARRAY<{MONEY}>"),
            TEXT_EACH: (double_text_each, "ARRAY<STRING>"),
        },
    )
