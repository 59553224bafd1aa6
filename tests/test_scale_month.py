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


# Every column of the view `allocation_days`, the start as its day: what a report can group by.
DAY_COLUMNS = (
    "source, provider, billing_period, billing_account_id, sub_account_id, date_trunc('day', charge_period_start), "
    "project, phase, method, experiment_id, cost_category, service_name, charge_category, pricing_category, rule, "
    "reason, currency"
)


def test_cells_summed_a_file_at_a_time_give_what_every_charge_sums_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attribution sums the charges placed whole into cells a range of files at a time. With every file a range
    of its own, a (tuple, kind, day) with charges in two files has a cell in each, and the allocations by day
    still sum to what the allocations, charge by charge (the view `allocations`, no cells), sum to."""
    monkeypatch.setattr(scale, "FILE_ROWS", 7_000)  # lanes of 720 hours cut across files
    monkeypatch.setattr(allocations, "CELL_SLICE", 1)
    files = scale.write_month(tmp_path, 21_600)
    scale.write_log(tmp_path / "experiments.jsonl", 21_600)
    config = Config.model_validate(
        {
            "warehouse": {"path": str(tmp_path / "ledger.duckdb")},
            "sources": [{"name": "cur", "kind": "aws-cur2", "uri": str(tmp_path / "cur" / "bench-cur2")}],
            "experiments": {"uri": str(tmp_path / "experiments.jsonl")},
        }
    )
    ingest(config, Silent())
    with open_warehouse(config, write=True) as con, transaction(con):
        allocations.attribute(con, config, Silent())
        by_day = con.execute(
            f"SELECT {DAY_COLUMNS}, sum(billed_cost), sum(effective_cost), sum(list_cost) FROM allocation_days "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        by_charge = con.execute(
            f"SELECT {DAY_COLUMNS}, sum(billed_cost), sum(effective_cost), sum(list_cost) FROM allocations "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        (cells, groups, charges) = con.execute(
            "SELECT count(*), count(DISTINCT (tuple_id, kind_id, charge_day)), sum(charges) FROM allocation_cells"
        ).fetchone() or (0, 0, 0)
        (whole,) = con.execute("SELECT count(*) FROM allocation_refs WHERE share_no = 1").fetchone() or (0,)
    assert len(files) == 4
    assert by_day == by_charge
    assert cells > groups  # some groups span files: one cell per file
    assert charges == whole
