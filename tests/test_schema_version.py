"""The warehouse carries its schema version: one written before versions were stored is stamped in place,
one written by a newer trainledger is refused with one line, and nothing in it changes."""

from __future__ import annotations

from collections.abc import Callable

import duckdb
from click.testing import Result

from conftest import Project, warehouse_state


def stored(project: Project) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute("SELECT key, value FROM trainledger_meta").fetchall()
    finally:
        con.close()


def test_a_new_warehouse_is_stamped_with_schema_2(run: Callable[..., Result], project: Project) -> None:
    assert run("nightly").exit_code == 0
    assert stored(project) == [("schema_version", "2")]


def test_a_warehouse_from_before_versions_is_read_as_is_and_stamped_by_the_next_run(
    run: Callable[..., Result], project: Project
) -> None:
    assert run("nightly").exit_code == 0
    con = duckdb.connect(str(project.warehouse))
    con.execute("DROP TABLE trainledger_meta")  # as the release before versions left it
    con.close()
    before = warehouse_state(project.warehouse)
    report = run("report")

    assert report.exit_code == 0, report.stderr
    assert "trainledger_meta" not in warehouse_state(project.warehouse)  # a reader writes nothing
    again = run("nightly")
    assert again.exit_code == 0, again.stderr
    after = warehouse_state(project.warehouse)
    assert after.pop("trainledger_meta") == [("schema_version", "2")]
    assert after == before  # stamped, not rebuilt


def test_a_warehouse_from_a_newer_trainledger_is_refused_and_left_alone(
    run: Callable[..., Result], project: Project
) -> None:
    assert run("nightly").exit_code == 0
    con = duckdb.connect(str(project.warehouse))
    con.execute("UPDATE trainledger_meta SET value = '3' WHERE key = 'schema_version'")
    con.close()
    before = warehouse_state(project.warehouse, ledger=True)
    expected = [
        f"trainledger: error: {project.warehouse}: written by a newer trainledger (schema 3, this version "
        "reads 2): upgrade trainledger to read it"
    ]
    for command in (("report",), ("nightly",)):
        result = run(*command)
        assert result.exit_code == 1
        assert result.stderr.strip().splitlines() == expected
    assert warehouse_state(project.warehouse, ledger=True) == before
