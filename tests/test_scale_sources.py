"""The bench's GCP and FOCUS months (fixtures/scale_sources.py), small: the same in two runs, read whole by
their connectors (totals checked by a plain Decimal sum over the files read with pyarrow), and billing the
same work as each other and their experiment logs name resources the bills carry."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import scale_sources
from trainledger.core.config import Config
from trainledger.core.reporter import Silent
from trainledger.pipeline.jobs import attribute, ingest
from trainledger.warehouse.connection import open_warehouse

pytestmark = pytest.mark.slow

ROWS = 14_400  # 20 lanes of 720 hourly rows: every kind of lane
SOURCES = {"gcp": ("gcp-billing", "gcp/billing"), "focus": ("focus", "focus")}


def _month(root: Path, source: str) -> Config:
    files = scale_sources.write_month(root, source, ROWS)
    assert files
    with (root / "experiments.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(f"{json.dumps(r)}\n" for r in scale_sources.experiment_records(source, ROWS))
    kind, uri = SOURCES[source]
    return Config.model_validate(
        {
            "warehouse": {"path": str(root / "ledger.duckdb")},
            "sources": [{"name": source, "kind": kind, "uri": str(root / uri)}],
            "experiments": {"uri": str(root / "experiments.jsonl")},
        }
    )


@pytest.fixture(scope="module", params=sorted(SOURCES))
def month(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, Config]:
    root = tmp_path_factory.mktemp(request.param)
    config = _month(root, request.param)
    ingest(config, Silent())
    attribute(config, Silent())
    return request.param, root, config


def _digest(root: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(root.rglob("*.parquet")))).hexdigest()


def test_the_month_is_the_same_in_two_runs(tmp_path: Path) -> None:
    for source in SOURCES:
        scale_sources.write_month(tmp_path / "a", source, 1440)
        scale_sources.write_month(tmp_path / "b", source, 1440)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")


def _file_total(source: str, root: Path) -> Decimal:
    """Net cost read with pyarrow and summed as Decimal: cost + credits (GCP), BilledCost (FOCUS)."""
    total = Decimal(0)
    for path in sorted(root.rglob("*.parquet")):
        table = pq.read_table(path)
        if source == "gcp":
            for cost, credits in zip(table["cost"].to_pylist(), table["credits"].to_pylist(), strict=True):
                total += Decimal(repr(cost)) + sum((Decimal(repr(c["amount"])) for c in credits), Decimal(0))
        else:
            total += sum(table["BilledCost"].to_pylist(), Decimal(0))
    return total


def test_every_row_is_read_and_the_money_adds_up(month: tuple[str, Path, Config]) -> None:
    source, root, config = month
    with open_warehouse(config, write=False) as con:
        rows, billed = con.execute("SELECT count(*), sum(billed_cost) FROM charges").fetchone() or ()
        allocated = con.execute("SELECT sum(billed_cost) FROM allocations").fetchone()
    assert rows == ROWS
    assert billed == _file_total(source, root)
    assert allocated == (billed,)


def test_the_log_names_resources_the_bill_carries(month: tuple[str, Path, Config]) -> None:
    """Runs are found on the bill: cost placed by the time windows and carrying an experiment."""
    _, _, config = month
    with open_warehouse(config, write=False) as con:
        windowed, experiments = (
            con.execute(
                "SELECT count(*) FILTER (WHERE rule = 'time-window'), count(DISTINCT experiment_id) FROM allocations"
            ).fetchone()
            or ()
        )
        logged = con.execute("SELECT count(*) FROM experiments").fetchone()
    assert windowed > 0
    assert logged is not None and experiments > logged[0] // 3
