"""Plain-text tables for people; money right-aligned to cents (the exact value is in csv/json)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal


def cell(value: object, money: bool = False) -> str:
    if value is None:
        return "-"
    if isinstance(value, Decimal):
        if money:
            cents = value.quantize(Decimal("0.01"))
            return f"{cents.copy_abs() if cents == 0 else cents:,f}"  # never -0.00
        return f"{value:f}"
    return str(value)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], money: Sequence[str] = ()) -> str:
    money_idx = {i for i, h in enumerate(headers) if h in money}
    text_rows = [[cell(v, i in money_idx) for i, v in enumerate(r)] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in text_rows]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if i in money_idx else v.ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in text_rows)
    return "\n".join(out)
