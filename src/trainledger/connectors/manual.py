"""Off-cloud charges from a hand-kept ledger (CSV or JSON Lines): labelling vendors, reviewer hours,
LLM-judge API bills. Small files, so rows are validated in Python with line numbers, then bulk-loaded.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainledger.connectors import bill_loader, rounding, sql_slots
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import LocalFiles, local_path, required_uri
from trainledger.core import json_lines, queries
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import InputError
from trainledger.core.labels import LabelScheme, canonical_value
from trainledger.core.money import MONEY_BOUND, rounded, to_decimal
from trainledger.core.reporter import Reporter
from trainledger.core.vocabulary import CATEGORIES
from trainledger.warehouse.connection import Connection

FIELDS = (
    "date",
    "period_start",
    "period_end",
    "amount",
    "currency",
    "project",
    "phase",
    "method",
    "experiment_id",
    "category",
    "vendor",
    "description",
    "reference",
)
REQUIRED = ("amount", "currency", "project", "category")
Options = LocalFiles
EXAMPLE = Example("offcloud-ledger.csv", "off-cloud charges: a CSV or JSON Lines ledger")


@dataclass
class LedgerRow:
    where: str
    line: int
    start: datetime
    end: datetime
    amount: Decimal
    currency: str
    tags: dict[str, str]
    category: str
    vendor: str | None
    description: str | None
    reference: str | None


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    text = path.read_text(encoding="utf-8-sig")
    if not text.strip():
        raise InputError(f"{path}: file is empty; expected a ledger with fields {', '.join(REQUIRED)}, ...")
    if path.suffix in (".jsonl", ".ndjson", ".json"):
        return json_lines.objects(text, str(path), "a ledger row")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    unknown = sorted(set(reader.fieldnames or []) - set(FIELDS))
    if unknown:
        raise InputError(
            f"{path}: line 1: unknown column(s) {', '.join(unknown)} (expected {', '.join(FIELDS)})"
        )
    return [(number, row) for number, row in enumerate(reader, start=2)]


def _day(value: Any, where: str, field: str) -> datetime:
    """A date (or ISO 8601 time) in the years 2000-2099, as every bill's times are checked (bill_time)."""
    text = str(value or "").strip()
    try:
        if len(text) == 10:
            parsed = datetime.combine(date.fromisoformat(text), datetime.min.time())
        else:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            parsed = parsed.astimezone(UTC).replace(tzinfo=None) if parsed.tzinfo else parsed
    except ValueError:
        parsed = None
    if parsed is None or not 2000 <= parsed.year <= 2099:
        raise InputError(
            f"{where}, column {field}: expected a date YYYY-MM-DD (years 2000-2099), got {text!r}"
        )
    return parsed


def parse_row(path: Path, line: int, record: dict[str, Any], scheme: LabelScheme) -> LedgerRow:
    where = f"{path}:{line}"
    for field in REQUIRED:
        if not str(record.get(field) or "").strip():
            raise InputError(f"{where}, column {field}: expected a value, got nothing")
    try:
        amount = to_decimal(record["amount"])
    except ValueError:
        raise InputError(
            f"{where}, column amount: expected a decimal number, got {record['amount']!r}"
        ) from None
    if abs(amount) >= MONEY_BOUND:
        raise InputError(f"{where}, column amount: expected an amount below 10^26, got {record['amount']!r}")
    currency = str(record["currency"]).strip().upper()
    if len(currency) != 3 or not currency.isalpha():
        raise InputError(
            f"{where}, column currency: expected a 3-letter currency code, got {record['currency']!r}"
        )
    if record.get("date"):
        start = _day(record["date"], where, "date")
        end = start + timedelta(days=1)
    elif record.get("period_start") and record.get("period_end"):
        start = _day(record["period_start"], where, "period_start")
        end = _day(record["period_end"], where, "period_end")
        if end <= start:
            raise InputError(f"{where}, column period_end: expected a date after period_start")
    else:
        raise InputError(
            f"{where}, column date: expected a date (or period_start and period_end), got nothing"
        )
    category = canonical_value(record["category"])
    if category not in CATEGORIES:
        raise InputError(
            f"{where}, column category: expected one of {', '.join(CATEGORIES)}, got {category!r}"
        )
    tags = {"project": str(record["project"])}
    for field, check in (("phase", scheme.phase), ("method", scheme.method)):
        value = str(record.get(field) or "").strip()
        if value:
            if check(value) is None:
                raise InputError(f"{where}, column {field}: {value!r} is not a known {field}")
            tags[field] = value
    if str(record.get("experiment_id") or "").strip():
        tags["experiment"] = str(record["experiment_id"]).strip()

    def text(field: str) -> str | None:
        value = str(record.get(field) or "").strip()
        return value or None

    return LedgerRow(
        where,
        line,
        start,
        end,
        amount,
        currency,
        tags,
        category,
        text("vendor"),
        text("description"),
        text("reference"),
    )


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    """One delivery: the ledger file, versioned by its content, whose rows name their periods."""
    uri = required_uri(source, source.options_as(LocalFiles).uri)
    path = local_path(
        source,
        config,
        uri,
        remote="kind manual reads a local CSV or JSON Lines file",
        what="ledger ",
        file=True,
    )
    return [Delivery(None, hashlib.sha256(path.read_bytes()).hexdigest(), path)]


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    """Parse and check every ledger row, then stage them; a period the ledger no longer has is restated
    (and so refused as empty, keeping it as it was)."""
    path: Path = delivery.ref
    scheme = LabelScheme(config.labels)
    rows = [parse_row(path, line, record, scheme) for line, record in _records(path)]
    _check_sum(rows)
    written = [r.amount for r in rows]
    for r in rows:
        r.amount = rounded(r.amount)
    reporter.step(f"{source.name}: {len(rows)} off-cloud charge(s) from {path.name}")
    sql_slots.run_filled(con, "ingest/manual_rows")
    con.executemany(
        queries.load("ingest/insert_manual_row"),
        [
            (
                r.line,
                r.start,
                r.end,
                r.amount,
                r.currency,
                json.dumps(r.tags, sort_keys=True),
                r.category,
                r.vendor,
                r.description,
                r.reference,
            )
            for r in rows
        ],
    )
    bill_loader.stage_table(con, "ingest/normalize_manual", {"source": source.name, "file": str(path)})
    found = sorted({r.start.strftime("%Y-%m") for r in rows})
    held = sql_slots.run_filled(con, "ingest/source_periods", {"source": source.name}).fetchall()
    stale = [p for (p,) in held if p not in found]
    return Staged([str(path)], periods=found + stale, residues=lambda: _residues(rows, written))


def _check_sum(rows: list[LedgerRow]) -> None:
    """Refuse a ledger whose amounts add up to 10^26 or more (signs aside), naming the row where they do: a
    period's total, a project's cost, must fit DECIMAL(38, 12), as staging.check_sums asks of every bill."""
    reached = Decimal(0)
    for r in rows:
        reached += abs(r.amount)
        if reached >= MONEY_BOUND:
            raise InputError(
                f"{r.where}, column amount: the amounts up to this row add up to 10^26 or more (signs aside), "
                "more than DECIMAL(38, 12) holds; expected a ledger whose totals fit"
            )


def _residues(rows: list[LedgerRow], written: list[Decimal]) -> rounding.Residues:
    """What rounding the amounts took away, by period and currency (the sum as written minus the sum
    stored), for the periods where an amount carried more than 12 places."""
    parts: dict[tuple[str, str], list[Decimal]] = {}
    for r, amount in zip(rows, written, strict=True):
        if amount != r.amount:
            parts.setdefault((r.start.strftime("%Y-%m"), r.currency), []).append(amount - r.amount)
    found: rounding.Residues = {}
    for (period, currency), residues in sorted(parts.items()):
        found.setdefault(period, {}).setdefault("amount", {})[currency] = rounding.exact_total(residues)
    return found
