"""A query run beside the main thread (warehouse.connection.in_background): it reads the same warehouse
file with the connection's session settings, its error reaches the caller, and an engine without cursors
runs it when its result is asked for."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pytest

from trainledger.warehouse.connection import Connection, in_background


@pytest.fixture
def con(tmp_path: Path) -> Connection:
    path = tmp_path / "ledger.duckdb"
    with duckdb.connect(str(path)) as writer:
        writer.execute("CREATE TABLE t AS SELECT 1 AS x UNION ALL SELECT 2")
    reader = duckdb.connect(str(path), read_only=True)
    reader.execute("SET TimeZone = 'UTC'")
    return reader


def test_the_work_reads_the_same_file_in_another_thread_in_utc(con: Connection) -> None:
    def work(cursor: Connection) -> tuple[object, ...]:
        total = cursor.execute("SELECT sum(x) FROM t").fetchone()
        zone = cursor.execute("SELECT current_setting('TimeZone')").fetchone()
        assert total is not None and zone is not None
        return total[0], zone[0], threading.current_thread() is threading.main_thread()

    with in_background(con, work) as result:
        # The main thread keeps using its own connection meanwhile.
        assert con.execute("SELECT count(*) FROM t").fetchone() == (2,)
        assert result() == (3, "UTC", False)


def test_an_error_in_the_work_is_raised_where_the_result_is_asked_for(con: Connection) -> None:
    missing = in_background(con, lambda cursor: cursor.execute("SELECT * FROM missing").fetchall())
    with missing as result, pytest.raises(duckdb.CatalogException, match="missing"):
        result()


def test_an_engine_without_cursors_runs_the_work_when_asked() -> None:
    calls: list[str] = []

    class Engine:  # a stand-in like SparkWarehouse: no cursor()
        pass

    engine = Engine()
    with in_background(engine, lambda c: calls.append("ran") or c) as result:  # type: ignore[arg-type]
        assert calls == []
        assert result() is engine
    assert calls == ["ran"]
