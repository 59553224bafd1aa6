"""FOCUS 1.2 Cost and Usage export of a billing period's allocations, so any FOCUS tool can read them.

One row per allocation share (a charge split over experiments appears as several rows whose costs add up
to it), the FOCUS columns we know from the bill, and the allocation in ``x_`` columns. CSV (UTF-8, one
header line, ISO 8601 UTC timestamps with ``Z``, plain decimal numbers, empty cell for null) or parquet
(DECIMAL(38, 12) money, UTC timestamps) when the file name ends in ``.parquet``.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from trainledger.core import queries
from trainledger.core.errors import TrainledgerError
from trainledger.core.files import safe_text, write_atomic
from trainledger.core.money import fmt
from trainledger.warehouse.connection import Connection, run

QUERY = "export/focus"


def _check(con: Connection, period: str) -> None:
    ((known,),) = run(con, "export/period_allocations", {"period": period}).fetchall()
    if not known:
        raise TrainledgerError(f"no allocations for billing period {period}; run `trainledger nightly` first")


def _cursor(con: Connection, period: str) -> Connection:
    _check(con, period)
    return con.execute(queries.load(QUERY), {"period": period})


def columns(con: Connection, period: str) -> list[str]:
    return [d[0] for d in _cursor(con, period).description or []]


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return fmt(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return safe_text(str(value))


def csv_pieces(con: Connection, period: str) -> Iterator[str]:
    """The CSV text 10,000 rows at a time: one row per allocation makes a big month's file large."""
    cursor = _cursor(con, period)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([d[0] for d in cursor.description or []])
    while batch := cursor.fetchmany(10_000):
        writer.writerows([_cell(v) for v in row] for row in batch)
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    yield out.getvalue()


def write(con: Connection, period: str, path: Path) -> Path:
    """Write the period's FOCUS file, parquet when ``path`` ends in .parquet, else CSV; atomically."""
    if path.suffix.lower() != ".parquet":
        write_atomic(path, csv_pieces(con, period))
        return path
    import pyarrow.parquet as pq

    _check(con, period)
    relation = con.sql(queries.load(QUERY), params={"period": period})
    # DuckDB 2 names it to_arrow_table; 1.x fetch_arrow_table.
    table = (getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table)()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="snappy")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
