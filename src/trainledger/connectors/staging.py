"""Shared steps of staging a source's rows: read its files, adapt columns, validate.

Loading the staged rows into charges, period by period, is :mod:`trainledger.connectors.bill_loader`.
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from trainledger.connectors import spark_files, sql_slots
from trainledger.connectors.bill_storage import BillFile
from trainledger.core import queries
from trainledger.core.currencies import ISO_4217
from trainledger.core.errors import InputError
from trainledger.warehouse.connection import Connection, on_spark, run

# What DuckDB raises for input it cannot read: a truncated gzip, an unparsable CSV, a corrupt parquet file.
READ_ERRORS = (duckdb.IOException, duckdb.InvalidInputException, duckdb.ConversionException)
_QUOTED_PATH = re.compile(r"['\"](/[^'\"]+)['\"]")
# The file formats a bill comes in, by the end of a file's name.
SUFFIXES = {
    "parquet": (".parquet",),
    "csv": (".csv", ".csv.gz"),
    "json": (".json", ".jsonl", ".ndjson", ".json.gz", ".jsonl.gz", ".ndjson.gz"),
}


def formats(files: Iterable[BillFile]) -> set[str]:
    """The formats of ``files`` by name ("other" for a name none ends with): a scan reads one format."""
    return {next((f for f, ends in SUFFIXES.items() if p.name.endswith(ends)), "other") for p in files}


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
        # The line names the file first; DuckDB's "... '<path>'" and "... at end of file '<path>'" say "the file".
        reason = reason.replace(f": {file}", "").replace(f"file '{file}'", "the file")
        reason = reason.replace(f"'{file}'", "the file").strip()
    if "gzip" in reason.lower():
        expected = "expected a complete gzip file (cut short or not gzip?)"
    elif "parquet" in reason.lower() or "magic bytes" in reason.lower():
        expected = "expected a complete parquet file"
    else:
        expected = "expected a readable bill in the source's format"
    return InputError(f"{file or f'source {source!r}'}: cannot read: {reason}; {expected}")


def _drop_temp(con: Connection, name: str) -> None:
    """Drop this connection's temporary table or view ``name`` (a registered scan counts as a view)."""
    for (kind,) in sql_slots.run_filled(con, "ingest/temp_object_kinds", {"name": name}).fetchall():
        sql_slots.run_filled(con, f"ingest/drop_temp_{kind.lower()}", name=sql_slots.ident(name))


def create_raw_view(con: Connection, name: str, relation: duckdb.DuckDBPyRelation) -> None:
    """Expose a file scan under a fixed view name so the normalising SQL can stay a plain file.

    The view is temporary (this connection only): the warehouse never keeps a view over input files.
    """
    _drop_temp(con, name)  # also ends a pending result, which register() refuses
    con.register(name, relation)


def read_parquet(con: Connection, name: str, files: Sequence[BillFile]) -> None:
    """Parquet files as the view ``name``, columns matched by name, with ``filename`` and
    ``file_row_number`` (what every normaliser reports a bad row with); on Spark, read by Spark."""
    if spark := on_spark(con):
        spark_files.read_parquet(spark, name, [str(f) for f in files])
        return
    relation = con.read_parquet(
        [str(f) for f in files],
        union_by_name=True,
        filename=True,
        file_row_number=True,
        hive_partitioning=False,
    )
    create_raw_view(con, name, relation)


def read_csv(con: Connection, name: str, files: Sequence[BillFile], **options: Any) -> None:
    """CSV (or csv.gz) files as text, with ``filename``, as the view ``name``; an unreadable file is one
    line naming it. ``options`` are the format's own (union by name, null spellings, sniffing). On Spark,
    read by Spark and numbered as it is read (``number_rows`` then names the same rows)."""
    if spark := on_spark(con):
        spark_files.read_csv(
            spark,
            name,
            [str(f) for f in files],
            union=bool(options.get("union_by_name")),
            nulls=options.get("na_values", ()),
        )
        return
    try:
        relation = con.read_csv(
            [str(f) for f in files], all_varchar=True, header=True, filename=True, **options
        )
        create_raw_view(con, name, relation)
    except Exception as exc:  # duckdb raises several error types for unreadable CSV/gzip
        raise unreadable(str(files[0]), exc, str(files[0])) from None


def number_rows(con: Connection, text_view: str, table: str) -> None:
    """Read a scan without row numbers (CSV) once into the temporary ``table``, adding ``file_row_number``
    (0-based, per file, in scan order: ``ingest/number_rows``).

    Read once, because every query over a CSV view reads and sniffs the files again.
    """
    if spark := on_spark(con):
        spark_files.same_rows(spark, table, text_view)
        return
    _drop_temp(con, table)
    sql_slots.run_filled(
        con, "ingest/number_rows", table=sql_slots.ident(table), scan=sql_slots.ident(text_view)
    )


def derive_view(con: Connection, made: str, view: str, select: sql_slots.Fragment) -> None:
    """The temporary view ``made``: ``select`` over ``view`` (``ingest/with_columns``). In DuckDB a CSV
    source's numbered table of that name (``number_rows``) is dropped first: a view cannot replace it."""
    if not on_spark(con):
        _drop_temp(con, made)
    sql_slots.run_filled(
        con, "ingest/with_columns", made=sql_slots.ident(made), view=sql_slots.ident(view), select=select
    )


def check_json_objects(con: Connection, view: str, columns: Sequence[str]) -> None:
    """Map columns written as JSON text (CUR 2.0 csv): the first cell that is not an object is an error."""
    for column in columns:
        row = sql_slots.run_filled(
            con, "ingest/first_non_object", view=sql_slots.ident(view), column=sql_slots.ident(column)
        ).fetchone()
        if row:
            file, line, text = row
            raise InputError(
                one_line(f"{file}, row {line}, column {column}: expected a JSON object, got '{text}'")
            )


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


_SEPARATORS = (
    ("\x01", "text with fields separated by \\x01 (a Hive/Athena text table)"),
    ("\t", "tab-separated text"),
    (";", "text with fields separated by semicolons"),
    ("|", "text with fields separated by '|'"),
    (",", "CSV text"),
)


def looks_like(path: Path) -> str:
    """What a file holds, in words, from its first bytes (through gzip): the start of the one line saying
    that a file given as a bill is not the bill its source kind reads."""
    with path.open("rb") as raw:
        magic = raw.read(4)
    if not magic:
        return "an empty file"
    if magic == b"PAR1":
        return "a parquet file"
    if magic.startswith(b"PK\x03\x04"):
        return "a ZIP archive"
    text = _head(path)
    header = text.splitlines()[0] if text else ""
    if "\x00" in text or "\ufffd" in text[:4096]:
        inner = "binary data"
    elif header.lstrip().startswith(("{", "[")):
        inner = "JSON"
    else:
        inner = next((what for sep, what in _SEPARATORS if sep in header), "text")
    return f"a gzip file of {inner}" if magic[:2] == b"\x1f\x8b" else f"a file of {inner}"


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
        if row and len(row) != width:
            return f"row {number} has {len(row)} field(s), expected {width} as in the header line"
    return None


def _header(path: Path) -> list[str]:
    """The first line of a CSV (or csv.gz) file as fields; empty when it cannot be read."""
    try:
        with path.open("rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        opener = gzip.open if gzipped else open
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as handle:
            line = handle.readline(_SAMPLE_BYTES)
    except (OSError, EOFError):
        return []  # DuckDB's own reading names the damage
    return next(csv.reader([line]), [])


def duplicated_column(path: Path) -> str | None:
    """A column named twice in a CSV file's header line (names compare as DuckDB does, ignoring case),
    in words; else None. DuckDB would read the second as ``<name>_1`` and one of them would be lost."""
    seen: dict[str, tuple[int, str]] = {}
    for position, name in enumerate(_header(path), start=1):
        key = name.strip().lower()
        if not key:
            continue
        if key in seen:
            first, spelled = seen[key]
            both = "" if spelled == name else f", as {spelled} and {name}"
            return f"column {spelled} appears twice (columns {first} and {position}{both}); expected each column once"
        seen[key] = (position, name)
    return None


def view_columns(con: Connection, view: str) -> dict[str, str]:
    if spark := on_spark(con):
        return spark_files.columns(spark, view)
    cur = sql_slots.run_filled(con, "ingest/view_columns", view=sql_slots.ident(view))
    return {d[0]: str(d[1]) for d in cur.description or []}


def local_csv(files: Sequence[BillFile], shown: Sequence[str]) -> list[tuple[Path, str]]:
    """The CSV files among ``files`` that are on this machine, with the names they are shown by: their
    header is checked here (an object Spark reads in place is not fetched for it)."""
    return [
        (f, s)
        for f, s in zip(files, shown, strict=True)
        if isinstance(f, Path) and not f.name.endswith(".parquet")
    ]


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

    ``files`` (local path, name to show) are the CSV files read: a column named twice in one is an error;
    when columns seem missing, a file that is not the CSV its name says (other separators, ragged rows,
    JSON) is named with what it really holds.
    """
    for local, shown in files:
        if problem := duplicated_column(local):
            raise InputError(one_line(f"{shown}: {problem}"))
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
        sql_slots.alias(sql_slots.Fragment(f"CAST(NULL AS {sql_type})"), col)
        for col, sql_type in optional.items()
        if col.lower() not in lowered
    ]
    derive_view(con, f"{view}_full", view, sql_slots.columns([sql_slots.Fragment("*"), *extra]))


def first_problem(con: Connection, query: str, params: dict[str, Any]) -> None:
    """Run a validation query; its first row (file, row, column, problem) becomes one InputError line.

    A query that names ``$currencies`` gets the ISO 4217 codes.
    """
    if "$currencies" in queries.load(query):
        params = {**params, "currencies": sorted(ISO_4217)}
    row = run(con, query, params).fetchone()
    if row:
        file, line, column, problem = row
        where = f"{file}, row {line}" if line is not None else f"{file}"
        raise InputError(f"{where}, column {column}: {one_line(_LONG_VALUE.sub(_shortened, problem))}")


_LONG_VALUE = re.compile(r"'([^'\n]{61,})'")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """A message quoting bill values as one line: control characters and line breaks show as ``\\u000a``."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _shortened(match: re.Match[str]) -> str:
    """A quoted value of more than 60 characters (a 5,000-digit number) as its start and its length."""
    return f"'{match.group(1)[:57]}...' ({len(match.group(1))} characters)"


# Below 10^26 with room for the rounding of a DOUBLE sum over millions of rows (relative error ~1e-9).
SUM_BOUND = 0.999999e26


def check_sums(con: Connection, view: str, columns: Iterable[str]) -> None:
    """Refuse a bill whose amounts add up to 10^26 or more in a cost column (signs aside): every sum of
    them (a period's total, a project's cost) must fit DECIMAL(38, 12). Names the row where it is reached."""
    names = list(columns)
    if not names:
        return
    sizes = sql_slots.columns(
        sql_slots.Fragment(f"sum(abs(TRY_CAST({sql_slots.ident(c).text} AS DOUBLE)))") for c in names
    )
    totals = sql_slots.run_filled(
        con, "ingest/cost_sizes", view=sql_slots.ident(view), sizes=sizes
    ).fetchone()
    for column, total in zip(names, totals, strict=True):
        if total is None or total < SUM_BOUND:
            continue
        slots = {"view": sql_slots.ident(view), "column": sql_slots.ident(column)}
        file, row = sql_slots.run_filled(
            con, "ingest/cost_sum_reached", {"bound": SUM_BOUND}, **slots
        ).fetchone() or ("?", "?")
        raise InputError(
            f"{file}, row {row}, column {column}: the amounts up to this row add up to 10^26 or more (signs "
            "aside), more than DECIMAL(38, 12) holds; expected a bill whose totals fit"
        )


def show_files_as(con: Connection, view: str, names: dict[str, str] | None) -> None:
    """Make ``view``'s ``filename`` column read as the original location (``s3://...``), not the cache path.

    ``charge_files`` keeps the name and errors show it, so both should point where the user can look.
    """
    if not names:
        return
    if spark := on_spark(con):
        spark_files.show_files_as(spark, view, names)
        return
    sql_slots.run_filled(con, "ingest/raw_file_names")
    con.executemany(queries.load("ingest/insert_raw_file_name"), sorted(names.items()))
    local = f"{view}_local"
    sql_slots.run_filled(con, "ingest/drop_temp_view", name=sql_slots.ident(local))
    sql_slots.run_filled(con, "ingest/rename_view", view=sql_slots.ident(view), to=sql_slots.ident(local))
    sql_slots.run_filled(
        con, "ingest/show_files_as", view=sql_slots.ident(view), local=sql_slots.ident(local)
    )


ResourceRow = tuple[str, str, str, str | None, str | None, str, list[str] | None]


def record_resources(con: Connection, rows: Sequence[ResourceRow], seen: datetime) -> None:
    """Upsert one inventory pull: (provider, resource_id, source, type, region, tags JSON, aliases) rows;
    first_seen is kept for known resources, last_seen becomes ``seen``."""
    sql_slots.run_filled(con, "ingest/seen_resources")
    if rows:
        con.executemany(queries.load("ingest/insert_seen_resource"), rows)
    sql_slots.run_filled(con, "ingest/upsert_resources", {"now": seen})
