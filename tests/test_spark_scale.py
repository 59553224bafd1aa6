"""A 100K-line generated month (the bench's, fixtures/scale.py) through `nightly` on DuckDB and on Spark local
mode, the bill read by Spark itself: every charge and every allocation identical to the exact decimal, each
charge's shares summing to it, the exports `nightly` writes and `report` byte-identical, `reconcile` JSON
equal. The demo month (test_spark_engine.py) has every rule; this one has the size where Spark's
partitioning, shuffles and window frames differ from one partition's.

Skipped, with the reason, where Java or pyspark is missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

import scale
from conftest import Project
from spark_checks import (
    ON_SPARK_WORKER,
    SPARK,
    assert_same_allocations,
    cli_in,
    duckdb_charges,
    require_spark,
    spark_charges,
)

pytestmark = [pytest.mark.slow, ON_SPARK_WORKER]

require_spark()

ROWS = 100_080  # 139 lanes of 720 hourly rows
COMMANDS = [
    ("report", "--by", "project,phase,method", "--format", "csv"),
    ("report", "--by", "waste,project", "--format", "csv"),
]


@pytest.fixture(scope="module")
def month(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated month: its CUR 2.0 export and experiment log."""
    folder = tmp_path_factory.mktemp("scale-month")
    scale.write_month(folder, ROWS)
    scale.write_log(folder / "experiments.jsonl", ROWS)
    return folder


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory, month: Path) -> dict[str, Project]:
    """The month through `nightly` on each engine (ingest, attribution and exports in one command)."""
    projects = {}
    for engine in ("duckdb", "spark"):
        project = Project(tmp_path_factory.mktemp(f"scale-{engine}"))
        project.write_config(
            '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
            + (SPARK if engine == "spark" else "")
            + f'\n[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "{month / "cur" / "bench-cur2"}"\n'
            + f'\n[experiments]\nuri = "{month / "experiments.jsonl"}"\n'
            + f'\n[exports]\ndir = "{project.root / "exports"}"\n'
        )
        result = cli_in(project.root)("nightly")
        assert result.exit_code == 0, result.stderr
        projects[engine] = project
    return projects


def test_a_100k_line_month_read_by_spark_gives_duckdbs_charges(
    engines: dict[str, Project], month: Path
) -> None:
    (data,) = month.glob("cur/bench-cur2/data/*/*.parquet")
    expected = duckdb_charges(engines["duckdb"])
    assert (
        len(expected) == pq.ParquetFile(data).metadata.num_rows == ROWS
    )  # every line item, counted by pyarrow
    assert spark_charges(engines["spark"]) == expected
    with duckdb.connect(str(engines["spark"].warehouse), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM charges").fetchone() == (0,)  # none through DuckDB


def test_a_100k_line_month_gives_the_same_allocations_and_outputs_on_spark(
    engines: dict[str, Project],
) -> None:
    allocations = assert_same_allocations(engines, at_least=ROWS)
    assert sum(1 for row in allocations if row[1] > 1) > 500  # charges split by time windows, on Spark too
    duck, spark = cli_in(engines["duckdb"].root), cli_in(engines["spark"].root)
    for args in COMMANDS:
        expected, got = duck(*args), spark(*args)
        assert expected.exit_code == 0 and len(expected.stdout.splitlines()) > 20, args
        assert (got.exit_code, got.stdout) == (expected.exit_code, expected.stdout), args
    exports = {
        engine: {p.name: p.read_bytes() for p in (project.root / "exports").iterdir()}
        for engine, project in engines.items()
    }
    assert "trainledger-2026-11.csv" in exports["duckdb"]
    assert exports["duckdb"]["trainledger-2026-11.csv"].count(b"\n") > 500
    assert exports["spark"] == exports["duckdb"]


def test_a_100k_line_month_reconciles_the_same_on_spark(engines: dict[str, Project], month: Path) -> None:
    """`reconcile` of the log's first two experiments (a month-long main run on a split instance, a
    concurrent eval run on the same instance), JSON equal on both engines. Each is some 30 s on Spark:
    the two that share an instance are the case where the engines could differ."""
    with (month / "experiments.jsonl").open(encoding="utf-8") as lines:
        ids = [json.loads(line)["experiment_id"] for line, _ in zip(lines, range(2), strict=False)]
    assert ids == ["bench-0000000-a", "bench-0000000-b"]
    duck, spark = cli_in(engines["duckdb"].root), cli_in(engines["spark"].root)
    for experiment in ids:
        expected = duck("reconcile", experiment, "--format", "json")
        assert expected.exit_code == 0, expected.stderr
        got = spark("reconcile", experiment, "--format", "json")
        assert json.loads(got.stdout) == json.loads(expected.stdout), experiment
