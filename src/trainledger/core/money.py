"""Exact money: DECIMAL(38, 12) in the warehouse, Decimal in Python, plain strings in outputs."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

SQL_TYPE = "DECIMAL(38, 12)"
SCALE = 12
PICO = Decimal("1e-12")  # one unit of the last place DECIMAL(38, 12) keeps
ZERO = Decimal(0)
CENT = Decimal("0.01")  # what people read money to, and what `export --cents` rounds to


def to_decimal(value: object) -> Decimal:
    """Parse a money value without passing through float; raises ValueError on non-numbers, NaN and ±inf."""
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation as exc:
            raise ValueError(f"not a number: {value!r}") from exc
    else:
        raise ValueError(f"not a number: {value!r}")
    if not result.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return result


def fmt(value: Decimal | None, places: int | None = None) -> str:
    """Plain decimal text (never exponent form), trailing zeros trimmed to at least two places.

    With ``places`` the value is rounded half-even to that many places, for display only.
    """
    if value is None:
        return ""
    if places is not None:
        value = value.quantize(Decimal(1).scaleb(-places))
        return f"{value:f}"
    text = f"{value.normalize():f}" if value != 0 else "0"
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    if len(frac) < 2:
        frac = frac.ljust(2, "0")
    if whole == "-0":
        whole = "0" if set(frac) == {"0"} else whole
    return f"{whole}.{frac}"
