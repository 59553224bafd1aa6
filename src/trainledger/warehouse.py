"""The embedded DuckDB warehouse: one writer at a time, every run one transaction, owner-only file."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from trainledger import queries
from trainledger.config import Config
from trainledger.errors import NotFound, TrainledgerError, WarehouseBusy

Connection = duckdb.DuckDBPyConnection


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set" in text)


def _connect(path: Path, read_only: bool, timeout_s: float) -> Connection:
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            if not _is_lock_error(exc):
                raise TrainledgerError(f"{path}: cannot open warehouse: {exc}") from None
            if time.monotonic() >= deadline:
                action = "read" if read_only else "write"
                raise WarehouseBusy(
                    f"{path}: warehouse is busy (another trainledger run holds it); could not {action} it "
                    f"within {timeout_s:g}s - try again when that run ends"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


@contextmanager
def open_warehouse(config: Config, *, write: bool) -> Iterator[Connection]:
    """Open the warehouse; writers create it (mode 0600 in a 0700 folder) and its schema."""
    path = config.warehouse_path()
    timeout = config.warehouse.lock_timeout_s
    if write:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fresh = not path.exists()
        old_umask = os.umask(0o077)
        try:
            con = _connect(path, read_only=False, timeout_s=timeout)
        finally:
            os.umask(old_umask)
        if fresh:
            os.chmod(path, 0o600)
        con.execute(queries.load("schema"))
    else:
        if not path.exists():
            raise NotFound(
                f"{path}: no warehouse yet - run `trainledger nightly` (or `ingest` and `attribute`)"
            )
        con = _connect(path, read_only=True, timeout_s=timeout)
    try:
        con.execute("SET TimeZone = 'UTC'")
        yield con
    finally:
        con.close()


@contextmanager
def transaction(con: Connection) -> Iterator[Connection]:
    """All or nothing: a failure (or a kill) leaves the warehouse as before the block."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def run(con: Connection, name: str, params: dict[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
    """Execute the named query file with DuckDB named parameters."""
    return con.execute(queries.load(name), params or {})


def rows(con: Connection, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    cur = run(con, name, params)
    cols = [d[0] for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
