"""A source kind added from outside (tests/toy_source.py, its SQL in tests/toy_queries/, one registry line)
ingests through the shared routine: charges appear, an unchanged period is skipped, a changed one replaced;
and its example reaches `trainledger init`'s starter file."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from trainledger.core import config as config_module
from trainledger.core import source_kinds, starter
from trainledger.core.reporter import Silent
from trainledger.pipeline import jobs

HERE = Path(__file__).resolve().parent


@pytest.fixture
def toy_kind() -> Iterator[None]:
    source_kinds.register("toy", "toy_source", query_dir=HERE / "toy_queries")  # the one registry line
    yield
    source_kinds.unregister("toy")


def write(path: Path, rows: list[tuple[str, str, str, str]]) -> None:
    path.write_text(
        "day,amount,currency,project\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8"
    )


def charges(warehouse: Path) -> dict[str, tuple[int, Decimal]]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        found = con.execute(
            "SELECT billing_period, count(*), sum(billed_cost) FROM charges WHERE source = 'toy' GROUP BY 1"
        ).fetchall()
    finally:
        con.close()
    return {period: (rows, total) for period, rows, total in found}


def test_toy_source_loads_skips_and_replaces_through_the_shared_routine(
    toy_kind: None, tmp_path: Path
) -> None:
    bills = tmp_path / "toy-bills"
    bills.mkdir()
    write(
        bills / "2026-10.csv",
        [("2026-10-03", "10.50", "USD", "alpha"), ("2026-10-04", "2.25", "USD", "beta")],
    )
    write(bills / "2026-11.csv", [("2026-11-01", "7.00", "USD", "alpha")])
    (tmp_path / "trainledger.toml").write_text(
        '[[sources]]\nname = "toy"\nkind = "toy"\nuri = "toy-bills"\n', encoding="utf-8"
    )
    config = config_module.load(tmp_path / "trainledger.toml")
    warehouse = config.warehouse_path()

    first = jobs.ingest(config, Silent())
    assert [(r.period, r.skipped, r.rows) for r in first.ingested] == [
        ("2026-10", False, 2),
        ("2026-11", False, 1),
    ]
    # Hand sums of the files above.
    assert charges(warehouse) == {"2026-10": (2, Decimal("12.75")), "2026-11": (1, Decimal("7.00"))}

    second = jobs.ingest(config, Silent())
    assert [(r.period, r.skipped) for r in second.ingested] == [("2026-10", True), ("2026-11", True)]
    assert charges(warehouse) == {"2026-10": (2, Decimal("12.75")), "2026-11": (1, Decimal("7.00"))}

    write(
        bills / "2026-11.csv", [("2026-11-01", "7.00", "USD", "alpha"), ("2026-11-02", "0.40", "USD", "beta")]
    )
    third = jobs.ingest(config, Silent())
    assert [(r.period, r.skipped, r.rows) for r in third.ingested] == [
        ("2026-10", True, 0),
        ("2026-11", False, 2),
    ]
    assert charges(warehouse) == {"2026-10": (2, Decimal("12.75")), "2026-11": (2, Decimal("7.40"))}


def test_toy_source_options_belong_to_its_kind(toy_kind: None, tmp_path: Path) -> None:
    path = tmp_path / "trainledger.toml"
    path.write_text('[[sources]]\nname = "toy"\nkind = "toy"\nuri = "x"\nprofile = "p"\n', encoding="utf-8")
    with pytest.raises(
        config_module.ConfigError, match=r"unknown key .*profile.* for kind toy \(its keys: uri\)"
    ):
        config_module.load(path)


def test_toy_source_reaches_the_starter_config_from_its_module_alone(toy_kind: None, tmp_path: Path) -> None:
    commented = '# toy: a folder of YYYY-MM.csv toy bills\n# [[sources]]\n# name = "toy"\n# kind = "toy"\n# uri = "toy-bills"\n'
    assert commented in starter.starter()
    path = tmp_path / "trainledger.toml"
    path.write_text(starter.starter("toy", "my-bills"), encoding="utf-8")
    assert [(s.kind, s.options.uri) for s in config_module.load(path).sources] == [("toy", "my-bills")]
