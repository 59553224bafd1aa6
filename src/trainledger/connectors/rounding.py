"""What rounding money to 12 decimal places took away from a bill (SPEC §2), exactly, and when to warn.

Providers print doubles as text (``0.000520833333333333``), so a bill's money often carries more places than
DECIMAL(38, 12) holds: ingest rounds it half-even (the macro ``money``, ``queries/schema/warehouse.sql``) and
records here, per billing period, money column and currency, the residue: the sum as written minus the sum
stored, computed from the digits of each value's text (a DOUBLE's shortest round-trip text), never through a
float. It goes to the run ledger (``runs --verbose``); from half a cent it is also a warning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from trainledger.connectors import sql_slots
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

WARN_AT = Decimal("0.005")  # half a cent: a residue this large shows in a total rounded to cents

# Per billing period: money column -> currency -> residue.
Residues = dict[str, dict[str, dict[str, Decimal]]]


@dataclass(frozen=True)
class MoneyColumns:
    """Where a staged bill's money is read: the raw view, its billing period start and currency columns,
    and the money columns whose residue is recorded (by the names they have in the file)."""

    view: str
    period: str
    currency: str
    columns: tuple[str, ...]


def exact_sum(parts: Iterable[tuple[int, int]]) -> Decimal:
    """The exact sum of ``n`` x 10^-``scale`` over ``(n, scale)`` pairs, whatever their sizes (Decimal
    arithmetic would round to its context's precision)."""
    terms = list(parts)
    if not terms:
        return Decimal(0)
    scale = max(s for _, s in terms)
    total = sum(n * 10 ** (scale - s) for n, s in terms)
    sign = 1 if total < 0 else 0
    return Decimal((sign, tuple(int(d) for d in str(abs(total))), -scale))


def exact_total(values: Iterable[Decimal]) -> Decimal:
    """The exact sum of Decimals, every digit kept."""
    parts = []
    for value in values:
        sign, digits, exponent = value.as_tuple()
        assert isinstance(exponent, int)  # finite: money is
        n = int("".join(map(str, digits)) or "0")
        parts.append((-n if sign else n, -exponent))
    return exact_sum(parts)


def residues(con: Connection, money: MoneyColumns) -> Residues:
    """The residue of each money column, by billing period and currency, over the staged rows that carry
    more than 12 places (found by a cheap test, so a bill without any costs one scan)."""
    if not money.columns:
        return {}
    parts: dict[tuple[str, str, str], list[tuple[int, int]]] = defaultdict(list)
    named = [(sql_slots.literal(column), sql_slots.ident(column)) for column in money.columns]
    residues = ", ".join(
        f"{{'money_column': {name.text}, 'residue': CASE WHEN money_long({value.text}) "
        f"THEN money_residue({value.text}) END}}"
        for name, value in named
    )
    slots = {
        "view": sql_slots.ident(money.view),
        "period": sql_slots.ident(money.period),
        "currency": sql_slots.ident(money.currency),
        "residues": sql_slots.Fragment(f"[{residues}]"),
        "any_long": sql_slots.Fragment(" OR ".join(f"money_long({value.text})" for _, value in named)),
    }
    for period, column, currency, places, n in sql_slots.run_filled(
        con, "ingest/money_residues", **slots
    ).fetchall():
        parts[(period, column, currency)].append((int(n), 12 + int(places)))
    found: Residues = {}
    for (period, column, currency), terms in sorted(parts.items()):
        found.setdefault(period, {}).setdefault(column, {})[currency] = exact_sum(terms)
    return found


def plain(value: Decimal) -> str:
    """A residue as plain decimal text, every digit kept (1.5E-13 -> 0.00000000000015)."""
    return f"{value:f}"


def warn_large(
    reporter: Reporter, source: str, period: str, found: Mapping[str, Mapping[str, Decimal]]
) -> None:
    """Warn, for each money column and currency of a period, when its residue reaches half a cent."""
    for column, by_currency in found.items():
        for currency, residue in by_currency.items():
            if abs(residue) >= WARN_AT:
                reporter.warn(
                    f"{source} {period}: rounding {column} to 12 decimal places left {plain(residue)} {currency} "
                    "out of the sum stored (the sum as written minus the sum stored); the bill's values carry "
                    "more places than DECIMAL(38, 12) holds"
                )
