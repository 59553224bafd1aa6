"""The embedded DuckDB warehouse: one writer at a time, every run one transaction, owner-only file."""

from __future__ import annotations

import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import duckdb

from trainledger.core import providers, queries
from trainledger.core.config import Config
from trainledger.core.errors import NotFound, TrainledgerError, WarehouseBusy, WarehouseFault
from trainledger.warehouse import schema

if TYPE_CHECKING:
    import pyarrow as pa

    from trainledger.warehouse.spark import SparkWarehouse

Connection = duckdb.DuckDBPyConnection
T = TypeVar("T")
Settings = dict[str, str | bool | int | float | list[str]]  # DuckDB's connect(config=...)


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set" in text)


def _holder(exc: Exception) -> str:
    """DuckDB names the process holding the lock ("... (PID 1234)"); say so, it helps whoever waits."""
    found = re.search(r"PID (\d+)", str(exc))
    return f"process {found.group(1)}" if found else "another process"


def _connect(
    path: Path,
    read_only: bool,
    timeout_s: float,
    notify: Callable[[str], None] | None = None,
    settings: Settings | None = None,
) -> Connection:
    """Open the file, retrying while another process holds DuckDB's file lock, for at most ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only, config=settings or {})
        except duckdb.IOException as exc:
            if not _is_lock_error(exc):
                fault = warehouse_fault(exc, path)
                raise fault or TrainledgerError(
                    f"{path}: cannot open warehouse: {str(exc).splitlines()[0]}"
                ) from None
            if notify is not None and delay == 0.05:
                notify(f"waiting up to {timeout_s:g}s for {_holder(exc)} to release the warehouse")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                action = "read" if read_only else "write"
                raise WarehouseBusy(
                    f"{path}: warehouse is busy: {_holder(exc)} is writing to it; could not {action} it "
                    f"within {timeout_s:g}s ([warehouse] lock_timeout_s, --lock-timeout); try again when "
                    "that run ends"
                ) from None
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 1.0)


_DISK_FULL = re.compile(r"No space left on device|disk is full|Disk full", re.IGNORECASE)
_DAMAGED = re.compile(r"Corrupt database file|not a valid DuckDB database", re.IGNORECASE)  # DuckDB's own
_SHORT_READ = re.compile(r"Could not read enough bytes", re.IGNORECASE)  # any file: the warehouse's if named
_NAMED_FILE = re.compile(r"""file ["']([^"']+)["']""")


def warehouse_fault(exc: BaseException, path: Path) -> WarehouseFault | None:
    """DuckDB's error as the fault it is when the disk is full or the warehouse file is damaged (a
    truncated copy, a bad block), so it is not mistaken for bad input or an internal error."""
    text = str(exc)
    detail = re.sub(r"^[A-Za-z ]*Error: ", "", text.splitlines()[0] if text else type(exc).__name__)
    named = _NAMED_FILE.search(text)
    where = named.group(1) if named else str(path)
    if _DISK_FULL.search(text):
        return WarehouseFault(
            f"{where}: no space left on the device ({detail}); free some space and rerun: the run was "
            "rolled back"
        )
    if _DAMAGED.search(text) or (_SHORT_READ.search(text) and named and where.startswith(str(path))):
        return WarehouseFault(
            f"{path}: the warehouse file is truncated or corrupt ({detail}); restore it from a backup, or "
            "move it aside and run `trainledger nightly` to rebuild it from the sources"
        )
    return None


@contextmanager
def _faults_named(path: Path) -> Iterator[None]:
    try:
        yield
    except duckdb.Error as exc:
        fault = warehouse_fault(exc, path)
        if fault is None:
            raise
        raise fault from None


def _memory_limit(config: Config) -> str:
    """``[warehouse] memory_limit`` as DuckDB takes it."""
    return config.warehouse.memory_limit.replace(" ", "")


@contextmanager
def memory_lent(con: Connection, config: Config, limit: str) -> Iterator[None]:
    """DuckDB's memory down to ``limit`` while the block builds something big in Python, then back to
    ``[warehouse] memory_limit`` (on error too): DuckDB evicts what it keeps cached, say the bill an ingest
    just wrote, instead of holding it on top of the Python objects."""
    con.execute("SET memory_limit = $limit", {"limit": limit})
    try:
        yield
    finally:
        con.execute("SET memory_limit = $limit", {"limit": _memory_limit(config)})


def _settings(config: Config) -> Settings:
    """DuckDB settings from ``[warehouse]``: its memory (spilling to disk beyond it) and threads."""
    settings: Settings = {"memory_limit": _memory_limit(config)}
    if config.warehouse.threads:
        settings["threads"] = config.warehouse.threads
    return settings


def progress_bar() -> bool:
    """DuckDB draws its progress bar on stdout, which carries only data: only a person at a terminal (both
    streams a terminal) sees one, never a pipe, a file or cron."""
    return sys.stdout.isatty() and sys.stderr.isatty()


def session(con: Connection) -> None:
    """UTC for every time without a zone; the progress bar only at a terminal; the provider table
    (core/providers.py) as the session's temporary tables and its macros provider_id and usage_billed, which
    the SQL reads."""
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"SET enable_progress_bar = {str(progress_bar()).lower()}")
    con.execute(queries.load("schema/providers"), providers.provider_rows())
    con.execute(queries.load("schema/provider_aliases"), providers.alias_rows())
    con.execute(queries.load("schema/provider_id"))
    con.execute(queries.load("schema/usage_billed"))


@contextmanager
def open_warehouse(
    config: Config,
    *,
    write: bool,
    notify: Callable[[str], None] | None = None,
    busy: Callable[[Path], Path] | None = None,
) -> Iterator[Connection]:
    """Open the warehouse; a writer creates it (0600 in a 0700 folder) and its schema.

    ``notify`` hears once that the call is waiting for another process's lock. While a writer is open
    the process umask is 077, so the files DuckDB adds next to the warehouse (its
    write-ahead log, spill files) are owner-only too: they hold the same data. ``busy`` (readers only):
    instead of waiting for a writer, read the file it returns, a copy of the last committed state
    (``warehouse/snapshot.py``).
    """
    path = config.warehouse_path()
    with _faults_named(path):
        yield from _open(config, path, write=write, notify=notify, busy=busy)


def _open(
    config: Config,
    path: Path,
    *,
    write: bool,
    notify: Callable[[str], None] | None,
    busy: Callable[[Path], Path] | None = None,
) -> Iterator[Connection]:
    timeout = config.warehouse.lock_timeout_s
    if not write:
        if not path.exists():
            raise NotFound(
                f"{path}: no warehouse yet - run `trainledger nightly` (or `ingest` and `attribute`)"
            )
        settings = _settings(config)
        try:
            con = _connect(
                path, read_only=True, timeout_s=0 if busy else timeout, notify=notify, settings=settings
            )
        except WarehouseBusy:
            if busy is None:
                raise
            con = _connect(busy(path), read_only=True, timeout_s=0, settings=settings)
        try:
            session(con)
            schema.check(con, path)
            yield _engine(con, config, write=False)
        finally:
            con.close()
        return
    old_umask = os.umask(0o077)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fresh = not path.exists()
        con = _connect(path, read_only=False, timeout_s=timeout, notify=notify, settings=_settings(config))
        try:
            if fresh:
                os.chmod(path, 0o600)
            session(con)
            schema.create(con, path, notify)
            yield _engine(con, config, write=True)
        finally:
            con.close()
    finally:
        os.umask(old_umask)


def _engine(con: Connection, config: Config, write: bool) -> Connection:
    """The connection the pipeline uses: DuckDB's own, or with ``[warehouse] engine = "spark"`` a stand-in
    that runs the statements over the bill's big tables on Spark (``warehouse/spark.py``)."""
    if config.warehouse.engine != "spark":
        return con
    from trainledger.warehouse.spark import SparkWarehouse

    return cast(Connection, SparkWarehouse(con, config, write))


def on_spark(con: Connection) -> SparkWarehouse | None:
    """The Spark stand-in when ``con`` is one (``engine = "spark"``): what reads a bill's files asks."""
    if isinstance(con, duckdb.DuckDBPyConnection):
        return None
    from trainledger.warehouse.spark import SparkWarehouse

    return con if isinstance(con, SparkWarehouse) else None


@contextmanager
def transaction(con: Connection) -> Iterator[Connection]:
    """All or nothing: a failure (or a kill) leaves the warehouse as before the block."""
    con.begin()
    try:
        yield con
    except BaseException:
        with suppress(duckdb.Error):  # a connection DuckDB invalidated has rolled back already
            con.rollback()
        raise
    con.commit()


def insert_rows(con: Connection, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """Insert Python rows (in the table's column order) in one statement, through Arrow.

    ``executemany`` runs one statement per row: seconds for the tens of thousands of experiments or tag
    sets of a large organisation. Money goes as decimal text, so DuckDB rounds it as it rounds a parameter.
    """
    if not rows:
        return
    import pyarrow as pa

    types = con.table(table).types
    arrays = []
    for i, sql_type in enumerate(map(str, types)):
        values = [row[i] for row in rows]
        if sql_type.startswith("DECIMAL"):
            values = [None if v is None else format(v, "f") for v in values]
        elif sql_type == "VARCHAR":
            values = [None if v is None else str(v) for v in values]
        arrays.append(pa.array(values))
    batch = pa.table(arrays, names=[f"c{i}" for i in range(len(types))])
    cast = [duckdb.ColumnExpression(f"c{i}").cast(t) for i, t in enumerate(types)]
    con.from_arrow(batch).select(*cast).insert_into(table)


def run(con: Connection, name: str, params: dict[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
    """Execute the named query file with DuckDB named parameters (on Spark, by its name: an engine may
    have its own version of it)."""
    if not isinstance(con, duckdb.DuckDBPyConnection):
        return cast(duckdb.DuckDBPyConnection, con.execute(queries.load(name), params or {}, name=name))
    return con.execute(queries.load(name), params or {})


def arrow(con: Connection, name: str, params: dict[str, Any] | None = None) -> pa.Table | None:
    """The named query's result as Arrow (exact DECIMAL columns, no Python objects per value), for a
    caller that computes on frames (``reports/compare.py``); None when an engine's statement returned none."""
    if not isinstance(con, duckdb.DuckDBPyConnection):
        result = cast(Any, run(con, name, params))
        with warnings.catch_warnings():
            # A statement over small tables only is DuckDB's, answered on a cursor: DuckDB 2 warns that
            # its Arrow is a copy (a report's rows, not the bill's).
            warnings.simplefilter("ignore", UserWarning)
            return result.to_arrow_table()
    return con.sql(queries.load(name), params=params or {}).to_arrow_table()


@contextmanager
def in_background(con: Connection, work: Callable[[Connection], T]) -> Iterator[Callable[[], T]]:
    """``work`` run in a thread on a cursor of its own while the block runs, for DuckDB to answer it on
    a core this thread leaves idle (it releases the GIL while it computes); the block gets a function
    that waits for the result (or raises the error). The block's end waits for the thread, so the
    connection outlives the cursor. A cursor sees committed data only. On an engine without cursors
    (Spark), ``work`` runs when its result is asked for."""
    if not isinstance(con, duckdb.DuckDBPyConnection):
        yield lambda: work(con)
        return

    def on_cursor() -> T:
        cursor = con.cursor()
        try:
            session(cursor)
            return work(cursor)
        finally:
            cursor.close()

    with ThreadPoolExecutor(1) as pool:
        done = pool.submit(on_cursor)
        yield done.result


def rows(con: Connection, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    cur = run(con, name, params)
    cols = [d[0] for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
