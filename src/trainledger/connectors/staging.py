"""Shared steps of every bill connector: adapt columns, validate, replace a period atomically."""

from __future__ import annotations

import csv
import gzip
import json
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from trainledger.connectors import IngestResult
from trainledger.core import queries
from trainledger.core.currencies import ISO_4217
from trainledger.core.errors import InputError
from trainledger.warehouse.connection import Connection

# What DuckDB raises for input it cannot read: a truncated gzip, an unparsable CSV, a corrupt parquet file.
READ_ERRORS = (duckdb.IOException, duckdb.InvalidInputException, duckdb.ConversionException)
_QUOTED_PATH = re.compile(r"['\"](/[^'\"]+)['\"]")


def unreadable(source: str, exc: Exception, file_hint: str | None = None) -> InputError:
    """DuckDB's read error as one line naming the file (the one it names, else ``file_hint``) and what
    was expected."""
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    reason = re.sub(r"^[A-Za-z ]*Error: ", "", first)
    quoted = _QUOTED_PATH.search(reason)
    tail = reason.rsplit(": ", 1)[-1] if ": " in reason else ""
    file = quoted.group(1) if quoted else (tail if tail.startswith("/") else file_hint)
    if file and Path(file).is_file() and Path(file).stat().st_size == 0:
        return InputError(f"{file}: file is empty; expected a bill with a header line and rows")
    if file:
        reason = reason.replace(f": {file}", "").replace(f"'{file}'", "the file").strip()
    if "gzip" in reason.lower():
        expected = "expected a complete gzip file (cut short or not gzip?)"
    elif "parquet" in reason.lower() or "magic bytes" in reason.lower():
        expected = "expected a complete parquet file"
    else:
        expected = "expected a readable bill in the source's format"
    return InputError(f"{file or f'source {source!r}'}: cannot read: {reason}; {expected}")


def _drop_temp(con: Connection, name: str) -> None:
    """Drop this connection's temporary table or view ``name`` (a registered scan counts as a view)."""
    kinds = con.execute(
        "SELECT 'TABLE' FROM duckdb_tables() WHERE temporary AND table_name = $name "
        "UNION ALL SELECT 'VIEW' FROM duckdb_views() WHERE temporary AND view_name = $name",
        {"name": name},
    ).fetchall()
    for (kind,) in kinds:
        con.execute(f'DROP {kind} IF EXISTS temp."{name}"')


def create_raw_view(con: Connection, name: str, relation: duckdb.DuckDBPyRelation) -> None:
    """Expose a file scan under a fixed view name so the normalising SQL can stay a plain file.

    The view is temporary (this connection only): the warehouse never keeps a view over input files.
    """
    _drop_temp(con, name)  # also ends a pending result, which register() refuses
    con.register(name, relation)


def number_rows(con: Connection, text_view: str, table: str) -> None:
    """Read a scan without row numbers (CSV) once into the temporary ``table``, adding ``file_row_number``
    (0-based, per file).

    Read once, because every query over a CSV view reads and sniffs the files again. ``row_number()
    OVER ()`` streams in scan order, which DuckDB keeps for a multi-file scan; numbering by ``PARTITION BY
    filename`` alone would reorder rows, and row numbers (in errors, in ``source_row``) must not change between
    runs.
    """
    _drop_temp(con, table)
    con.execute(
        f'CREATE TEMP TABLE "{table}" AS SELECT * EXCLUDE (scan_row), '
        "CAST(scan_row - min(scan_row) OVER (PARTITION BY filename) AS BIGINT) AS file_row_number "
        f'FROM (SELECT *, row_number() OVER () AS scan_row FROM "{text_view}") ORDER BY scan_row'
    )


def check_json_objects(con: Connection, view: str, columns: Sequence[str]) -> None:
    """Map columns written as JSON text (CUR 2.0 csv): the first cell that is not an object is an error."""
    for column in columns:
        row = con.execute(
            f'SELECT filename, file_row_number + 1, left("{column}", 60) FROM "{view}" '
            f"WHERE nullif(trim(\"{column}\"), '') IS NOT NULL "
            f'AND (NOT json_valid("{column}") OR json_type("{column}") <> \'OBJECT\') ORDER BY 1, 2 LIMIT 1'
        ).fetchone()
        if row:
            file, line, text = row
            raise InputError(f"{file}, row {line}, column {column}: expected a JSON object, got '{text}'")


_SAMPLE_BYTES = 1 << 20


def _head(path: Path) -> str:
    """The first MiB of a file as text, through gzip when it is gzip; never raises on undecodable bytes."""
    with path.open("rb") as raw:
        magic = raw.read(2)
    try:
        if magic == b"\x1f\x8b":
            with gzip.open(path, "rb") as handle:
                data = handle.read(_SAMPLE_BYTES)
        else:
            with path.open("rb") as handle:
                data = handle.read(_SAMPLE_BYTES)
    except (OSError, EOFError):
        return ""  # a truncated gzip: DuckDB's own reading says so
    return data.decode("utf-8", errors="replace")


def csv_shape_problem(path: Path) -> str | None:
    """What a file named as CSV really holds, in words, when it cannot be the expected CSV; else None.

    Looked at only when the engine could not make sense of the file: DuckDB's sniffer turns such files
    into one odd column, whose "missing columns" are really there.
    """
    text = _head(path)
    lines = text.splitlines()
    if not lines:
        return None
    if text.startswith("PAR1"):
        return "is a parquet file, not CSV; name it .parquet"
    header = lines[0]
    if header.lstrip().startswith(("{", "[")):
        return "holds JSON, not CSV; expected a CSV file with a header line"
    if "," not in header:
        for sep, name in (
            ("\x01", "\\x01 (Hive/Athena text)"),
            ("\t", "tabs"),
            (";", "semicolons"),
            ("|", "'|'"),
        ):
            if sep in header:
                return f"fields are separated by {name}, not commas; expected a CSV file with a header line"
    complete = lines if len(text) < _SAMPLE_BYTES else lines[:-1]  # the sample may cut the last line
    rows = list(csv.reader(complete))
    width = len(rows[0])
    for number, row in enumerate(rows[1:], start=1):
        if row and len(row) < width:
            return f"row {number} has {len(row)} field(s), expected {width} as in the header line"
    return None


def view_columns(con: Connection, view: str) -> dict[str, str]:
    cur = con.execute(f'SELECT * FROM "{view}" LIMIT 0')
    return {d[0]: str(d[1]) for d in cur.description or []}


def add_missing_columns(
    con: Connection,
    view: str,
    optional: dict[str, str],
    required: Iterable[str],
    where: str,
    what: str,
    files: Sequence[tuple[Path, str]] = (),
) -> None:
    """Fail on a missing required column; give absent optional ones typed NULLs (schemas vary by month).

    ``files`` (local path, name to show) are the CSV files read: when columns seem missing, a file that is
    not the CSV its name says (other separators, short rows, JSON) is named with what it really holds.
    """
    columns = view_columns(con, view)
    lowered = {c.lower(): c for c in columns}
    missing = [c for c in required if c.lower() not in lowered]
    if missing:
        for local, shown in files:
            problem = csv_shape_problem(local)
            if problem:
                raise InputError(f"{shown}: {problem}")
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise InputError(f"{where}: not a {what} file: missing column(s) {shown}")
    extra = [
        f'CAST(NULL AS {sql_type}) AS "{col}"'
        for col, sql_type in optional.items()
        if col.lower() not in lowered
    ]
    if extra:
        con.execute(
            f'CREATE OR REPLACE TEMP VIEW "{view}_full" AS SELECT *, {", ".join(extra)} FROM "{view}"'
        )
    else:
        con.execute(f'CREATE OR REPLACE TEMP VIEW "{view}_full" AS SELECT * FROM "{view}"')


def first_problem(con: Connection, query: str, params: dict[str, Any]) -> None:
    """Run a validation query; its first row (file, row, column, problem) becomes one InputError line.

    A query that names ``$currencies`` gets the ISO 4217 codes.
    """
    sql = queries.load(query)
    if "$currencies" in sql:
        params = {**params, "currencies": sorted(ISO_4217)}
    row = con.execute(sql, params).fetchone()
    if row:
        file, line, column, problem = row
        where = f"{file}, row {line}" if line is not None else f"{file}"
        raise InputError(f"{where}, column {column}: {problem}")


def replace_period(
    con: Connection,
    *,
    source: str,
    period: str,
    version: str,
    files: Sequence[str],
    staged: str | None = None,
    select: str | None = None,
    params: dict[str, Any] | None = None,
) -> IngestResult:
    """Swap the period's charges for the staged rows; the caller's transaction makes it atomic.

    The rows are the table ``staged``, or come from ``select`` (with ``params``) straight from the files,
    so that a big month streams into the warehouse instead of being held in a temporary table first. A
    restatement replaces the period whole, so late rows land once. An empty restatement of a period the
    warehouse holds is refused: a cut-short delivery must not erase a month (it is found after the swap,
    which the caller's transaction then undoes).
    """
    assert (staged is None) != (select is None)
    rows = f"({select})" if select is not None else f'"{staged}"'
    values = {**(params or {}), "period": period}
    con.execute(
        "DELETE FROM charges WHERE source = $source AND billing_period = $period",
        {"source": source, "period": period},
    )
    # The period's charges get new ids, so its allocations must be made again, even for the same content.
    con.execute("DELETE FROM step_inputs WHERE step = 'attribution'")
    insert_charges(con, source, rows, files, "r.billing_period = $period", values)
    con.execute(
        "DELETE FROM charge_files WHERE source = $source "
        "AND slot NOT IN (SELECT DISTINCT charge_slot(charge_id) FROM charges WHERE source = $source)",
        {"source": source},
    )
    count, currencies, total = con.execute(
        "SELECT count(*), count(DISTINCT billing_currency), sum(billed_cost) FROM charges "
        "WHERE source = $source AND billing_period = $period",
        {"source": source, "period": period},
    ).fetchone() or (0, 0, None)
    if not count and known_version(con, source, period) is not None:
        where = files[0] if len(files) == 1 else f"{len(files)} files"
        raise InputError(
            f"{where}: no line items for billing period {period}; expected the restated period's rows "
            "(an empty delivery would erase the period, which is kept as it was)"
        )
    if currencies > 1:
        total = None  # currencies are never added; the run ledger keeps the total per currency
    con.execute(
        "INSERT OR REPLACE INTO ingest_state VALUES ($source, $period, $version, $files, $rows, $total, $at)",
        {
            "source": source,
            "period": period,
            "version": version,
            "files": json.dumps(list(files)),
            "rows": count,
            "total": total,
            "at": datetime.now(UTC).replace(tzinfo=None),
        },
    )
    return IngestResult(
        source,
        period,
        int(count),
        Decimal(total) if total is not None else None,
        version=version,
        files=list(files),
    )


# A charge's id from its file's slot in this load and its row (charge_number, schema/warehouse.sql).
# Rows come as (r, from the normalising query) joined to (f, temp table load_files).
_CHARGE_ID = (
    "coalesce(charge_number(f.slot, r.source_row), error('cannot number row ' "
    "|| coalesce(CAST(r.source_row AS VARCHAR), '?') || ' of ' || coalesce(r.source_file, '?') "
    "|| ': not a file of this load, or beyond 2^32 rows'))"
)


def insert_charges(
    con: Connection, source: str, rows: str, files: Iterable[str], where: str, params: dict[str, Any]
) -> None:
    """Insert normalised rows (``rows``: a table name or a parenthesised query, with ``source_file`` and
    ``source_row``) that satisfy ``where`` into charges, each numbered by its file and row; the files go
    to ``charge_files`` once each rather than on every charge (at 10M rows, 0.3 s of writing).

    Slots come from a sequence, so an id is never given twice, even after its period was replaced.
    """
    con.execute(
        "CREATE OR REPLACE TEMP TABLE load_files AS SELECT name, nextval('charge_file_slots') AS slot "
        "FROM (SELECT DISTINCT unnest(CAST($names AS VARCHAR[])) AS name ORDER BY name)",
        {"names": sorted(set(files))},
    )
    con.execute(
        "INSERT INTO charge_files SELECT slot, $source, name FROM load_files ORDER BY slot",
        {"source": source},
    )
    con.execute(
        f"INSERT INTO charges BY NAME SELECT r.* EXCLUDE (source_file), {_CHARGE_ID} AS charge_id "
        f"FROM {rows} r LEFT JOIN load_files f ON f.name = r.source_file WHERE {where}",
        params,
    )


def known_version(con: Connection, source: str, period: str) -> str | None:
    row = con.execute(
        "SELECT version FROM ingest_state WHERE source = $source AND billing_period = $period",
        {"source": source, "period": period},
    ).fetchone()
    return row[0] if row else None


def show_files_as(con: Connection, view: str, names: dict[str, str] | None) -> None:
    """Make ``view``'s ``filename`` column read as the original location (``s3://...``), not the cache path.

    ``charge_files`` keeps the name and errors show it, so both should point where the user can look.
    """
    if not names:
        return
    con.execute("CREATE OR REPLACE TEMP TABLE raw_file_names (local VARCHAR, display VARCHAR)")
    con.executemany("INSERT INTO raw_file_names VALUES (?, ?)", sorted(names.items()))
    con.execute(f'DROP VIEW IF EXISTS "{view}_local"')
    con.execute(f'ALTER VIEW "{view}" RENAME TO "{view}_local"')
    con.execute(
        f'CREATE TEMP VIEW "{view}" AS SELECT v.* REPLACE (coalesce(n.display, v.filename) AS filename) '
        f'FROM "{view}_local" v LEFT JOIN raw_file_names n ON n.local = v.filename'
    )


ResourceRow = tuple[str, str, str, str | None, str | None, str, list[str] | None]


def record_resources(con: Connection, rows: Sequence[ResourceRow], seen: datetime) -> None:
    """Upsert one inventory pull: (provider, resource_id, source, type, region, tags JSON, aliases) rows;
    first_seen is kept for known resources, last_seen becomes ``seen``."""
    con.execute("CREATE OR REPLACE TEMP TABLE seen_resources AS SELECT * FROM resources LIMIT 0")
    con.execute("ALTER TABLE seen_resources DROP COLUMN first_seen")
    con.execute("ALTER TABLE seen_resources DROP COLUMN last_seen")
    if rows:
        con.executemany("INSERT INTO seen_resources VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    con.execute(queries.load("ingest/upsert_resources"), {"now": seen})
