"""The bench's generated month (fixtures/scale.py), small: it has the shape the benchmark claims, and on it
the fast placement of whole charges gives exactly what the exact split by time windows gives."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import scale
from trainledger.attribution import allocations
from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.reporter import Silent
from trainledger.pipeline.jobs import ingest
from trainledger.warehouse.connection import open_warehouse, transaction

pytestmark = pytest.mark.slow

ROWS = 72_000  # 100 lanes of 720 hourly rows: every kind of lane, 1 to 4 resources each


@pytest.fixture(scope="module")
def month(tmp_path_factory: pytest.TempPathFactory) -> Config:
    root = tmp_path_factory.mktemp("scale")
    scale.write_month(root, ROWS)
    scale.write_log(root / "experiments.jsonl", ROWS)
    config = Config.model_validate(
        {
            "warehouse": {"path": str(root / "ledger.duckdb")},
            "sources": [{"name": "cur", "kind": "aws-cur2", "uri": str(root / "cur" / "bench-cur2")}],
            "experiments": {"uri": str(root / "experiments.jsonl")},
        }
    )
    ingest(config, Silent())
    return config


def test_the_month_has_the_shape_the_bench_claims(month: Config) -> None:
    con = duckdb.connect(str(month.warehouse_path()), read_only=True)
    try:
        resources, untagged, experiments = (
            con.execute(
                "SELECT count(DISTINCT resource_id), avg(CASE WHEN tags = '{}' THEN 1 ELSE 0 END), "
                "(SELECT count(*) FROM experiments) FROM charges"
            ).fetchone()
            or ()
        )
        kinds = dict(con.execute("SELECT line_item_type, count(*) FROM charges GROUP BY 1").fetchall())
        hours = con.execute("SELECT count(DISTINCT charge_period_start) FROM charges").fetchone()
    finally:
        con.close()
    assert resources == 184
    assert 0.15 < untagged < 0.3  # a fifth of the units
    assert experiments == 137
    assert kinds == {"Usage": 57_600, "SavingsPlanCoveredUsage": 7_200, "SavingsPlanNegation": 7_200}
    assert hours == (720,)


def test_placing_charges_whole_gives_what_the_exact_split_gives(
    month: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    def attributed() -> list[tuple[object, ...]]:
        with open_warehouse(month, write=True) as con, transaction(con):
            allocations.attribute(con, month, Silent())
            return con.execute("SELECT * FROM allocations ORDER BY ALL").fetchall()

    placed = attributed()
    original = queries.load

    def everything_split(name: str) -> str:
        text = original(name)
        if name == "attribute/place":  # every charge on a logged resource takes the exact split path
            return text.replace(
                "WHEN tc_id IS NULL THEN 'whole'", "WHEN tc_id IS NULL THEN 'whole' WHEN true THEN 'split'"
            )
        return text

    monkeypatch.setattr(queries, "load", everything_split)
    split = attributed()
    assert len(split) == len(placed) > ROWS
    assert split == placed
    assert {row[17] for row in placed} == {"tag", "time-window", "idle", "unattributed"}


def test_the_generated_files_are_the_same_every_time(tmp_path: Path) -> None:
    first = scale.write_month(tmp_path / "a", 7_200)
    second = scale.write_month(tmp_path / "b", 7_200)
    assert [f.read_bytes() for f in first] == [f.read_bytes() for f in second]
