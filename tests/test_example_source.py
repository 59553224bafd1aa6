"""A source kind written from ARCHITECTURE.md "Add a source" alone (tests/example_source.py, its SQL in
tests/example_queries/): its charges tie to the raw files, a month without an optional column reads the
same, each charge points at its file row, and a bad row is one line naming file, row and column."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from trainledger.core import config as config_module
from trainledger.core import source_kinds
from trainledger.core.errors import InputError
from trainledger.core.reporter import Silent
from trainledger.pipeline import jobs

HERE = Path(__file__).resolve().parent
OCTOBER = (
    "provider,start,end,service,amount,currency,labels\n"
    'Oracle Cloud,2026-10-03T00:00:00,2026-10-03T01:00:00,GPU Compute,10.125000000000049,USD,"{""project"": ""alpha""}"\n'
    'oci,2026-10-04T00:00:00,2026-10-04T01:00:00,Block Volume,2.25,USD,"{}"\n'
)
NOVEMBER = (
    "provider,start,end,service,usage_type,amount,currency,labels\n"
    'Oracle Cloud Infrastructure,2026-11-01T00:00:00,2026-11-01T01:00:00,GPU Compute,BM.GPU.H100.8,7.00,EUR,"{""project"": ""beta""}"\n'
    'oci,2026-11-01T01:00:00,2026-11-01T02:00:00,GPU Compute,BM.GPU.H100.8,7.00,USD,"{""project"": ""beta""}"\n'
)


@pytest.fixture
def example_kind() -> Iterator[None]:
    source_kinds.register("example", "example_source", query_dir=HERE / "example_queries")
    yield
    source_kinds.unregister("example")


def _project(tmp_path: Path, files: dict[str, str]) -> config_module.Config:
    bills = tmp_path / "statements"
    bills.mkdir()
    for name, text in files.items():
        (bills / name).write_text(text, encoding="utf-8")
    (tmp_path / "trainledger.toml").write_text(
        '[[sources]]\nname = "statements"\nkind = "example"\nuri = "statements"\n', encoding="utf-8"
    )
    return config_module.load(tmp_path / "trainledger.toml")


def _raw_sums(folder: Path) -> dict[tuple[str, str], Decimal]:
    """Per period and currency, the amounts as written, summed by the csv module and Decimal."""
    sums: dict[tuple[str, str], Decimal] = {}
    for path in sorted(folder.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                key = (path.stem, row["currency"])
                sums[key] = sums.get(key, Decimal(0)) + Decimal(row["amount"])
    return sums


def test_charges_tie_to_the_files_whatever_columns_a_month_has(example_kind: None, tmp_path: Path) -> None:
    config = _project(tmp_path, {"2026-10.csv": OCTOBER, "2026-11.csv": NOVEMBER})
    result = jobs.ingest(config, Silent())
    assert [(r.period, r.rows) for r in result.ingested] == [("2026-10", 2), ("2026-11", 2)]

    con = duckdb.connect(str(config.warehouse_path()), read_only=True)
    try:
        stored = con.execute(
            "SELECT billing_period, billing_currency, sum(billed_cost) FROM charges GROUP BY ALL"
        ).fetchall()
        rows = con.execute(
            "SELECT f.file, c.source_row, c.provider, c.usage_type, c.tags FROM charges c "
            "JOIN charge_files f ON c.charge_id >> 32 = f.slot ORDER BY f.file, c.source_row"
        ).fetchall()
    finally:
        con.close()
    # 10.125000000000049 has 15 places: stored half-even to 12 (the macro money), 10.125000000000.
    raw = _raw_sums(tmp_path / "statements")
    assert raw[("2026-10", "USD")] == Decimal("12.375000000000049")
    assert {(p, c): s for p, c, s in stored} == {
        ("2026-10", "USD"): Decimal("12.375000000000"),
        ("2026-11", "EUR"): raw[("2026-11", "EUR")],
        ("2026-11", "USD"): raw[("2026-11", "USD")],
    }
    october, november = (
        str(tmp_path / "statements" / "2026-10.csv"),
        str(tmp_path / "statements" / "2026-11.csv"),
    )
    # source_row: the data row's 1-based number (the header not counted); the provider named by the table.
    assert [(f, n, p, u, json.loads(t)) for f, n, p, u, t in rows] == [
        (october, 1, "oci", None, {"project": "alpha"}),
        (october, 2, "oci", None, {}),
        (november, 1, "oci", "BM.GPU.H100.8", {"project": "beta"}),
        (november, 2, "oci", "BM.GPU.H100.8", {"project": "beta"}),
    ]


def test_a_bad_row_is_one_line_naming_file_row_and_column(example_kind: None, tmp_path: Path) -> None:
    config = _project(tmp_path, {"2026-10.csv": OCTOBER.replace("2.25,USD", "2.25,US$")})
    statement = tmp_path / "statements" / "2026-10.csv"
    with pytest.raises(InputError) as raised:
        jobs.ingest(config, Silent())
    assert str(raised.value) == (
        f"{statement}, row 2, column currency: expected an ISO 4217 currency code, got 'US$'"
    )
