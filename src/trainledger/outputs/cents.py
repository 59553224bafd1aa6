"""Money to the cent for finance (`export --cents`) without breaking the tie to the invoice.

Rounding each row on its own drifts: three shares of 0.02 (0.00666…) round to 0.01 each and sum to 0.03.
Largest remainder keeps every (billing period, billing account, currency) total equal to that total rounded
to the cent, half up as an invoice rounds: every row is floored to the cent, and the cents still missing go
to the rows with the largest remainders (ties: the earlier row in export order).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal

from trainledger.core.money import CENT

GROUP = ("billing_period", "billing_account_id", "currency")

Row = tuple[object, ...]


def largest_remainder(amounts: Sequence[Decimal]) -> list[Decimal]:
    """Each amount to the cent, the rounded amounts summing to their exact sum rounded half up."""
    target = sum(amounts, Decimal(0)).quantize(CENT, ROUND_HALF_UP)
    rounded = [a.quantize(CENT, ROUND_FLOOR) for a in amounts]
    missing = int((target - sum(rounded, Decimal(0))) / CENT)
    by_remainder = sorted(range(len(amounts)), key=lambda i: (rounded[i] - amounts[i], i))
    for i in by_remainder[:missing]:
        rounded[i] += CENT
    return rounded


def round_rows(rows: Sequence[Row], columns: Sequence[str], money: set[str]) -> list[Row]:
    """Every money column of ``rows`` to the cent, by largest remainder within each GROUP."""
    group_at = [columns.index(c) for c in GROUP]
    groups: dict[tuple[object, ...], list[int]] = {}
    for n, row in enumerate(rows):
        groups.setdefault(tuple(row[i] for i in group_at), []).append(n)
    out = [list(row) for row in rows]
    for column in (i for i, c in enumerate(columns) if c in money):
        for members in groups.values():
            amounts = [Decimal(rows[n][column]) for n in members]  # type: ignore[arg-type]
            for n, cents in zip(members, largest_remainder(amounts), strict=True):
                out[n][column] = cents
    return [tuple(row) for row in out]


def collapse(rows: Sequence[Row], columns: Sequence[str], money: set[str], kept: set[str]) -> list[Row]:
    """Sum rows over the dimensions not ``kept`` (their cells empty), sorted as the export query sorts
    (NULLs last): rounding happens at full detail first, so each account's cents still tie after ``--by``."""
    sums: dict[tuple[object, ...], list[Decimal]] = {}
    money_at = [i for i, c in enumerate(columns) if c in money]
    for row in rows:
        key = tuple(None if c in money or c not in kept else row[i] for i, c in enumerate(columns))
        totals = sums.setdefault(key, [Decimal(0)] * len(money_at))
        for k, i in enumerate(money_at):
            totals[k] += row[i]  # type: ignore[operator]
    out = []
    for key in sorted(sums, key=lambda k: [(v is None, "" if v is None else str(v)) for v in k]):
        values = iter(sums[key])
        out.append(tuple(next(values) if c in money else key[i] for i, c in enumerate(columns)))
    return out
