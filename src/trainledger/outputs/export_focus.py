"""FOCUS Cost and Usage export of a billing period's allocations, so any FOCUS tool can read them.

One row per allocation share (a charge split over experiments appears as several rows whose costs add up
to it), the FOCUS columns we know from the bill, and the allocation. FOCUS 1.2 (the default) carries the
allocation in ``x_`` columns; FOCUS 1.3 writes a split charge's shares as allocated charges of a data
generator-calculated split cost allocation (``queries/export/focus_13.sql``). CSV (UTF-8, one header line,
ISO 8601 UTC timestamps with ``Z``, plain decimal numbers, empty cell for null) or parquet (DECIMAL(38, 12)
money, UTC timestamps) when the file name ends in ``.parquet``.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from trainledger.connectors import sql_slots
from trainledger.core import queries
from trainledger.core.config_labels import LabelsConfig
from trainledger.core.config_outputs import FOCUS_VERSIONS, FocusVersion
from trainledger.core.errors import TrainledgerError
from trainledger.core.files import safe_text, write_atomic
from trainledger.core.money import fmt
from trainledger.warehouse.connection import Connection, on_spark, run

QUERIES: dict[FocusVersion, str] = {"1.2": "export/focus", "1.3": "export/focus_13"}
assert set(QUERIES) == set(FOCUS_VERSIONS)


def _prepared(
    con: Connection, period: str, version: FocusVersion, labels: LabelsConfig | None
) -> tuple[str, dict[str, str]]:
    """The version's query and its parameters, once the period is known to have allocations and the rows
    both versions select from (the table macro ``focus_shares``) are defined; for 1.3, once the split
    charges' ratios and quantities are in the temporary table ``focus_13_split`` (dropped by ``_query``)."""
    ((known,),) = run(con, "export/period_allocations", {"period": period}).fetchall()
    if not known:
        raise TrainledgerError(f"no allocations for billing period {period}; run `trainledger nightly` first")
    run(con, "export/focus_shares")
    params = {"period": period}
    if version == "1.3":
        run(con, "export/focus_13_split", params)
        # AllocatedTags are written with the keys attribution reads first, so the file reads back as labels.
        keys = labels or LabelsConfig()
        params |= {"project_key": keys.project[0], "phase_key": keys.phase[0], "method_key": keys.method[0]}
    return queries.load(QUERIES[version]), params


@contextmanager
def _one_thread(con: Connection) -> Iterator[None]:
    """DuckDB on one thread while the block runs the file's query, then as many as before (on error too).

    The file is sorted whole (its rows in time order), wide rows: a proportional month at 1M lines writes
    9.2M of them. On two threads DuckDB 2.0.1 ran out of memory at the default limit without spilling the
    sort (762.9 MiB in use, none on disk); on one it spills and finishes (BENCHMARKS.md, issue 33). The
    query's time is small beside the file's formatting, which is one thread's work anyway.
    """
    if on_spark(con):
        yield
        return
    ((threads,),) = con.execute("SELECT current_setting('threads')").fetchall()
    con.execute("SET threads = 1")
    try:
        yield
    finally:
        con.execute(f"SET threads = {int(threads)}")


@contextmanager
def _query(
    con: Connection, period: str, version: FocusVersion, labels: LabelsConfig | None
) -> Iterator[tuple[str, dict[str, str]]]:
    """The file's query and parameters (``_prepared``) while the block reads its rows, on one DuckDB thread;
    after, on error too, the threads as before and FOCUS 1.3's split table dropped (8.2M rows at 1M)."""
    with _one_thread(con):
        try:
            yield _prepared(con, period, version, labels)
        finally:
            if version == "1.3":
                sql_slots.run_filled(con, "ingest/drop_temp_table", name=sql_slots.ident("focus_13_split"))


def columns(con: Connection, period: str, version: FocusVersion = "1.2") -> list[str]:
    with _query(con, period, version, None) as (sql, params):
        return [d[0] for d in con.execute(sql, params).description or []]


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return fmt(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return safe_text(str(value))


def csv_pieces(
    con: Connection, period: str, version: FocusVersion = "1.2", labels: LabelsConfig | None = None
) -> Iterator[str]:
    """The CSV text 10,000 rows at a time: one row per allocation makes a big month's file large."""
    with _query(con, period, version, labels) as (sql, params):
        cursor = con.execute(sql, params)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([d[0] for d in cursor.description or []])
        while batch := cursor.fetchmany(10_000):
            writer.writerows([_cell(v) for v in row] for row in batch)
            yield out.getvalue()
            out.seek(0)
            out.truncate()
        yield out.getvalue()


def write(
    con: Connection,
    period: str,
    path: Path,
    version: FocusVersion = "1.2",
    labels: LabelsConfig | None = None,
) -> Path:
    """Write the period's FOCUS file of ``version``, parquet when ``path`` ends in .parquet, else CSV;
    atomically. ``labels``: the config's label keys, which 1.3's AllocatedTags are written with."""
    if path.suffix.lower() != ".parquet":
        write_atomic(path, csv_pieces(con, period, version, labels))
        return path
    import pyarrow.parquet as pq

    with _query(con, period, version, labels) as (sql, params):
        relation = con.sql(sql, params=params)
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
