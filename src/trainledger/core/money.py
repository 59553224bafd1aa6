"""Exact money: DECIMAL(38, 12) in the warehouse, Decimal in Python, plain strings in outputs."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext

SQL_TYPE = "DECIMAL(38, 12)"
SCALE = 12
PICO = Decimal("1e-12")  # one unit of the last place DECIMAL(38, 12) keeps
ZERO = Decimal(0)
CENT = Decimal("0.01")  # what people read money to, and what `export --cents` rounds to

MONEY_BOUND = Decimal(10) ** 26  # DECIMAL(38, 12) holds less, and so must every total of a bill's amounts


def rounded(amount: Decimal) -> Decimal:
    """An amount rounded half-even to 12 decimal places, as every bill's money is (SPEC §2)."""
    with localcontext(prec=60):  # below 10^26 with 12 places: 38 digits, never rounded by the context
        return amount.quantize(PICO, rounding=ROUND_HALF_EVEN)


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
