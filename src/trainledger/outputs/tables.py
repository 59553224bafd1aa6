"""Plain-text tables for people; money right-aligned to cents (the exact value is in csv/json).

Text from bills and logs (label values, experiment ids, descriptions) may hold terminal control
sequences: in a table every control character is shown as a visible symbol, never sent raw, so a tag
value cannot recolour, retitle or rewrite the reader's terminal. Long text columns are elided to fit
the terminal's width; money and numbers never are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.core.money import CENT

# C0 controls, DEL, C1 controls, and the bidirectional overrides that reorder what a reader sees.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
ELLIPSIS = "…"
MIN_TEXT_WIDTH = 6


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode Control Pictures: ESC shows as ␛, newline as ␊
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character made visible (``\\x1b`` → ``␛``, ``\\n`` → ``␊``)."""
    return _CONTROL.sub(_picture, text)


def visible_lines(text: str) -> str:
    """Like ``visible`` but keeping line breaks: for text already laid out in lines."""
    return "\n".join(visible(line) for line in text.split("\n"))


def cell(value: object, money: bool = False) -> str:
    if value is None:
        return "-"
    if isinstance(value, Decimal):
        if money:
            cents = value.quantize(Decimal("0.01"))
            return f"{cents.copy_abs() if cents == 0 else cents:,f}"  # never -0.00
        return f"{value:f}"
    return visible(str(value))


def hours(value: Decimal | str | None) -> str:
    """GPU-hours for people: two places (half-even), thousands separated; "-" when unknown."""
    return "-" if value is None else f"{Decimal(value).quantize(CENT, ROUND_HALF_EVEN):,f}"


def _fit(widths: list[int], elidable: set[int], limit: int | None) -> list[int]:
    """Narrow the widest elidable columns, one character at a time, until the line fits ``limit``."""
    widths = list(widths)
    if limit is None:
        return widths
    while sum(widths) + 2 * (len(widths) - 1) > limit:
        candidates = [i for i in elidable if widths[i] > MIN_TEXT_WIDTH]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: (widths[i], -i))
        widths[widest] -= 1
    return widths


def _elide(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    money: Sequence[str] = (),
    width: int | None = None,
) -> str:
    """Columns padded to their widest cell; with ``width``, long text cells are cut with ``…`` to fit."""
    money_idx = {i for i, h in enumerate(headers) if h in money}
    text_rows = [[cell(v, i in money_idx) for i, v in enumerate(r)] for r in rows]
    natural = [max([len(h)] + [len(r[i]) for r in text_rows]) for i, h in enumerate(headers)]
    numeric = {
        i
        for i in range(len(headers))
        if i in money_idx or (rows and all(isinstance(r[i], int | Decimal) or r[i] is None for r in rows))
    }
    widths = _fit(natural, set(range(len(headers))) - numeric, width)

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            _elide(v, w).rjust(w) if i in money_idx else _elide(v, w).ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in text_rows)
    return "\n".join(out)
