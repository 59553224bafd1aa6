"""CUR 2.0 parquet whose ``resource_tags`` and ``cost_category`` are JSON text instead of maps (some exports
and re-exports write them so): read as the maps they spell, so tags attribute cost exactly as the map form
does; a cell that is not a JSON object is refused with its file, row and column."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
from click.testing import CliRunner, Result

from conftest import demo_config
from trainledger.cli import cli

DATA = "aws/cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet"
ALLOCATED = (
    "SELECT project, phase, method, experiment_id, rule, sum(billed_cost) FROM allocations "
    "GROUP BY ALL ORDER BY ALL"
)


def _nightly(root: Path, inputs: Path) -> Result:
    config = root / "trainledger.toml"
    root.mkdir(exist_ok=True)
    config.write_text(demo_config(inputs), encoding="utf-8")
    return CliRunner().invoke(cli, ["--config", str(config), "nightly"], catch_exceptions=False)


def _query(root: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(root / ".trainledger" / "ledger.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _as_text(
    inputs: Path, where: str = "true", tags: str = "CAST(to_json(resource_tags) AS VARCHAR)"
) -> None:
    """Rewrite the month's parquet with the map columns as JSON text (``tags`` for rows matching ``where``)."""
    data = inputs / DATA
    rewritten = data.with_name("rewritten.parquet")
    con = duckdb.connect()
    con.execute(
        f"COPY (SELECT * REPLACE (CASE WHEN {where} THEN {tags} ELSE CAST(to_json(resource_tags) AS VARCHAR) END "
        "AS resource_tags, CAST(to_json(cost_category) AS VARCHAR) AS cost_category) "
        f"FROM read_parquet('{data}')) TO '{rewritten}' (FORMAT parquet)"
    )
    con.close()
    rewritten.replace(data)


def test_tags_as_json_text_attribute_as_the_map_form(tmp_path: Path, demo_files: Path) -> None:
    as_map = _nightly(tmp_path / "map", demo_files)
    assert as_map.exit_code == 0, as_map.stderr
    inputs = tmp_path / "inputs"
    shutil.copytree(demo_files, inputs)
    _as_text(inputs)
    types = duckdb.sql(f"SELECT typeof(resource_tags), typeof(cost_category) FROM '{inputs / DATA}' LIMIT 1")
    assert types.fetchall() == [("VARCHAR", "VARCHAR")]
    as_text = _nightly(tmp_path / "text", inputs)
    assert as_text.exit_code == 0, as_text.stderr
    expected = _query(tmp_path / "map", ALLOCATED)
    assert any(row[4] == "tag" for row in expected)  # the demo month attributes by tags
    assert _query(tmp_path / "text", ALLOCATED) == expected
    tags = "SELECT source_row, tags FROM charges ORDER BY source_row"
    assert _query(tmp_path / "text", tags) == _query(tmp_path / "map", tags)


def test_tags_as_text_that_is_not_an_object_is_refused_with_its_row(tmp_path: Path, demo_files: Path) -> None:
    inputs = tmp_path / "inputs"
    shutil.copytree(demo_files, inputs)
    _as_text(inputs, where="file_row_number = 6", tags='\'["user_project", "qwen-coder"]\'')
    result = _nightly(tmp_path, inputs)
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (
        1,
        f"trainledger: error: {inputs / DATA}, row 7, column resource_tags: expected a JSON object, got "
        """'["user_project", "qwen-coder"]'""",
    )


def test_tags_of_another_parquet_type_are_refused(tmp_path: Path, demo_files: Path) -> None:
    inputs = tmp_path / "inputs"
    shutil.copytree(demo_files, inputs)
    data = inputs / DATA
    rewritten = data.with_name("rewritten.parquet")
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT * REPLACE (map_keys(resource_tags) AS resource_tags) "
        f"FROM read_parquet('{data}')) TO '{rewritten}' (FORMAT parquet)"
    )
    con.close()
    rewritten.replace(data)
    result = _nightly(tmp_path, inputs)
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (
        1,
        f"trainledger: error: {data}: column resource_tags: expected a map or a JSON object as text, got "
        "parquet type VARCHAR[]",
    )
