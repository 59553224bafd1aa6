"""A 100K-line generated month (the bench's, fixtures/scale.py) through DuckDB and through Spark local mode:
every allocation identical to the exact decimal, each charge's shares summing to it, `export` and `report`
byte-identical. The demo month (test_spark_engine.py) has every rule; this one has the size where Spark's
partitioning, shuffles and window frames differ from one partition's.

Skipped, with the reason, where Java or pyspark is missing.
"""

from __future__ import annotations

import pytest

import scale
from conftest import Project
from spark_checks import ON_SPARK_WORKER, assert_same_allocations, cli_in, require_spark

pytestmark = [pytest.mark.slow, ON_SPARK_WORKER]

require_spark()

ROWS = 100_080  # 139 lanes of 720 hourly rows
SPARK = (
    'engine = "spark"\nmaster = "local[2]"\n'
    'spark_conf = { "spark.sql.shuffle.partitions" = "2", "spark.ui.enabled" = "false" }\n'
)
COMMANDS = [
    ("report", "--by", "project,phase,method", "--format", "csv"),
    ("report", "--by", "waste,project", "--format", "csv"),
]


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Project]:
    month = tmp_path_factory.mktemp("scale-month")
    scale.write_month(month, ROWS)
    scale.write_log(month / "experiments.jsonl", ROWS)
    projects = {}
    for engine in ("duckdb", "spark"):
        project = Project(tmp_path_factory.mktemp(f"scale-{engine}"))
        project.write_config(
            '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
            + (SPARK if engine == "spark" else "")
            + f'\n[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "{month / "cur" / "bench-cur2"}"\n'
            + f'\n[experiments]\nuri = "{month / "experiments.jsonl"}"\n'
        )
        for command in ("ingest", "attribute"):
            result = cli_in(project.root)(command)
            assert result.exit_code == 0, result.stderr
        projects[engine] = project
    return projects


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
    written = {}
    for engine, project in engines.items():
        out = project.root / "2026-11.csv"
        assert cli_in(project.root)("export", "--period", "2026-11", "--out", str(out)).exit_code == 0
        written[engine] = out.read_bytes()
    assert written["spark"] == written["duckdb"] and written["duckdb"].count(b"\n") > 500
