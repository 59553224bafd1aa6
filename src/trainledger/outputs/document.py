"""One output path for every read command: a ``Document`` rendered as a table, CSV or JSON.

A read command builds one ``Document`` from the core's data and the CLI renders it in the format asked
for. Each format's safety is applied here, once: CSV text cells are formula-safe (``safe_text``), table
cells are terminal-safe (``tables.visible``), JSON keeps every value exact.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from trainledger.core.errors import TrainledgerError
from trainledger.core.files import safe_text
from trainledger.core.money import fmt
from trainledger.outputs.tables import table, visible_lines


@dataclass
class Table:
    """Rows for people: money columns are shown to the cent, right-aligned."""

    headers: Sequence[str]
    rows: Sequence[Sequence[object]]
    money: Sequence[str] = ()


@dataclass
class Sheet:
    """Rows for a spreadsheet: one header line; ``numeric`` columns hold numbers as text (never quoted)."""

    headers: Sequence[str]
    rows: Sequence[Sequence[object]]
    numeric: frozenset[str] = frozenset()


@dataclass
class Document:
    """What a read command shows: ``parts`` (tables and lines, in order) for a terminal, ``sheet`` for
    CSV, ``data`` for JSON. A format left None is not offered by that command."""

    parts: list[Table | str] = field(default_factory=list)
    data: Any = None
    sheet: Sheet | None = None


def plain(value: Any) -> Any:
    """JSON for a value JSON has no type for: money as a decimal string, times in ISO 8601."""
    if isinstance(value, Decimal):
        return fmt(value)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def json_text(data: Any) -> str:
    return json.dumps(data, indent=2, default=plain) + "\n"


def csv_text(sheet: Sheet) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(sheet.headers)
    for row in sheet.rows:
        writer.writerow(
            [
                _csv_cell(value, header in sheet.numeric)
                for header, value in zip(sheet.headers, row, strict=True)
            ]
        )
    return out.getvalue()


def _csv_cell(value: object, numeric: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return fmt(value)
    if isinstance(value, date):
        return value.isoformat()
    return str(value) if numeric else safe_text(str(value))


def table_text(parts: Sequence[Table | str], width: int | None = None) -> str:
    lines = [
        table(p.headers, p.rows, p.money, width) if isinstance(p, Table) else visible_lines(p) for p in parts
    ]
    return "\n".join(lines) + "\n"


def render(document: Document, fmt_: str, width: int | None = None) -> str:
    """The document in ``fmt_`` (table, csv or json); ``width`` fits tables to a terminal."""
    if fmt_ == "json" and document.data is not None:
        return json_text(document.data)
    if fmt_ == "csv" and document.sheet is not None:
        return csv_text(document.sheet)
    if fmt_ == "table":
        return table_text(document.parts, width)
    raise TrainledgerError(f"--format {fmt_} is not available here")
