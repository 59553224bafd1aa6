"""Idempotency: the same inputs give the same exports, byte for byte, and the same tables; a restated
month replaces the old one; late rows land once."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

import generate
from conftest import Project, demo_config, warehouse_state
from focus_files import write_focus
from trainledger.cli import cli

CUR_DIR = "aws/cur/ml-cur2"
CUR_FILE = f"{CUR_DIR}/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet"
MANIFEST = f"{CUR_DIR}/metadata/BILLING_PERIOD=2026-11/ml-cur2-Manifest.json"


class Site:
    """A project folder with its own copy of the inputs, and a second warehouse built from scratch."""

    def __init__(self, root: Path, demo_files: Path) -> None:
        self.root = root
        self.inputs = root / "inputs"
        shutil.copytree(demo_files, self.inputs)
        write_focus(
            self.inputs / "focus" / "vendor-2026-11.csv",
            [
                {"BilledCost": "12.50", "Tags": {"project": "qwen-coder", "phase": "eval", "method": "sft"}},
                {"BilledCost": "-0.75", "ChargeCategory": "Credit"},
            ],
        )
        config = (
            demo_config(self.inputs)
            + f'\n[[sources]]\nname = "vendor"\nkind = "focus"\nuri = "{self.inputs / "focus"}"\n'
        )
        (root / "trainledger.toml").write_text(config, encoding="utf-8")
        fresh = config.replace('path = ".trainledger/ledger.duckdb"', 'path = "fresh/ledger.duckdb"')
        (root / "fresh.toml").write_text(
            fresh.replace('dir = "exports"', 'dir = "fresh/exports"'), encoding="utf-8"
        )

    def nightly(self, config: str = "trainledger.toml") -> Result:
        result = CliRunner().invoke(
            cli, ["--config", str(self.root / config), "nightly"], catch_exceptions=False
        )
        assert result.exit_code == 0, result.stderr
        return result

    def exports(self, folder: str = "exports") -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted((self.root / folder).iterdir())}

    def state(self, warehouse: str = ".trainledger/ledger.duckdb") -> dict[str, list[tuple[object, ...]]]:
        """The warehouse's content without the run ledger and ingest times (which differ run to run)."""
        state = warehouse_state(self.root / warehouse)
        state["ingest_state"] = [row[:-1] for row in state["ingest_state"]]
        return state

    def query(self, sql: str) -> list[tuple[object, ...]]:
        con = duckdb.connect(str(self.root / ".trainledger" / "ledger.duckdb"), read_only=True)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()

    def restate_cur(self, rows: list[dict], execution_id: str) -> None:
        """Deliver the month again, as AWS does: new data file content, then a manifest with a new execution."""
        pq.write_table(
            generate.rows_to_table(rows), self.inputs / CUR_FILE, compression="snappy", store_schema=False
        )
        manifest = json.loads((self.inputs / MANIFEST).read_text(encoding="utf-8"))
        manifest["executionId"] = execution_id
        (self.inputs / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


@pytest.fixture
def site(project: Project, demo_files: Path) -> Site:
    return Site(project.root, demo_files)


def billed_total(rows: list[dict]) -> Decimal:
    """The bill's total computed independently: each double's shortest decimal text, added exactly."""
    return sum((Decimal(repr(r["line_item_unblended_cost"])) for r in rows), Decimal(0))


def test_nightly_twice_gives_identical_exports_and_tables(site: Site) -> None:
    site.nightly()
    first_exports, first_state = site.exports(), site.state()
    second = site.nightly()
    assert "ingested\taws-cur2\t2026-11\tunchanged" in second.stdout
    assert site.exports() == first_exports
    assert site.state() == first_state
    outcomes = site.query("SELECT command, outcome FROM runs")
    assert outcomes == [("nightly", "ok"), ("nightly", "ok")]


def test_a_fresh_warehouse_from_the_same_inputs_is_identical(site: Site) -> None:
    site.nightly()
    site.nightly("fresh.toml")
    assert site.exports("fresh/exports") == site.exports()
    assert site.state("fresh/ledger.duckdb") == site.state()
    assert list(site.exports()) == ["alerts.json", "trainledger-2026-11.csv"]


def test_a_restated_month_replaces_the_old_one(site: Site) -> None:
    site.nightly()
    restated = generate.cur2_rows(seed=8)  # other usage amounts and line item ids, same month
    site.restate_cur(restated, "0b1c5e57-0000-4000-8000-000000000008")
    result = site.nightly()
    total = billed_total(restated)
    assert total != billed_total(generate.cur2_rows(seed=7))
    shown = f"{total.quantize(Decimal('0.01')):,f}"  # to the cent, as `report` shows money; exact below
    assert f"ingested\taws-cur2\t2026-11\t{len(restated)} rows, billed {shown} USD" in result.stdout
    assert site.query(
        "SELECT count(*), sum(billed_cost) FROM charges WHERE source = 'aws-cur2' AND billing_period = '2026-11'"
    ) == [(len(restated), total)]
    assert site.query("SELECT sum(billed_cost) FROM allocations WHERE source = 'aws-cur2'") == [(total,)]
    # Exactly what a warehouse built from the restated inputs alone holds, and the same export bytes.
    site.nightly("fresh.toml")
    assert site.state("fresh/ledger.duckdb") == site.state()
    assert site.exports("fresh/exports") == site.exports()


def test_a_late_credit_lands_once(site: Site) -> None:
    site.nightly()
    rows = generate.cur2_rows(seed=7)
    credit = next(r for r in rows if r["line_item_line_item_type"] == "Credit")
    late = {
        **credit,
        "identity_line_item_id": "late" + credit["identity_line_item_id"][4:],
        "line_item_unblended_cost": -100.0,
        "line_item_line_item_description": "Late credit for an outage",
    }
    site.restate_cur([*rows, late], "1a7ec4ed-0000-4000-8000-000000000007")
    site.nightly()
    site.nightly()
    assert site.query(
        "SELECT count(*), sum(billed_cost) FROM charges WHERE source = 'aws-cur2' AND line_item_type = 'Credit'"
    ) == [(2, Decimal("-350.00"))]
    assert site.query("SELECT sum(billed_cost) FROM charges WHERE source = 'aws-cur2'") == [
        (Decimal("67253.05311856"),)
    ]


def test_late_focus_rows_land_once(site: Site) -> None:
    site.nightly()
    write_focus(site.inputs / "focus" / "vendor-2026-11-late.csv", [{"BilledCost": "3.25"}])
    site.nightly()
    site.nightly()
    assert site.query("SELECT count(*), sum(billed_cost) FROM charges WHERE source = 'vendor'") == [
        (3, Decimal("15.00"))
    ]
    assert site.query("SELECT sum(billed_cost) FROM allocations WHERE source = 'vendor'") == [
        (Decimal("15.00"),)
    ]


def test_report_files_without_a_manifest_are_not_loaded_again_unchanged(
    run, project: Project, tmp_path: Path, demo_files: Path
) -> None:
    """A legacy CUR file without a manifest is read each night to learn its periods; a period it already
    gave keeps its charges (and their ids), so the allocations kept as unchanged still name them."""
    generate.write_cur_legacy_month(tmp_path / "legacy")
    loose = tmp_path / "ml-cur-1.csv.gz"
    shutil.copy(next((tmp_path / "legacy").rglob("ml-cur-1.csv.gz")), loose)
    project.write_config(
        f'[[sources]]\nname = "loose"\nkind = "aws-cur"\nuri = "{loose}"\n'
        f'[experiments]\nuri = "{demo_files / "experiments.jsonl"}"\n'
    )
    assert run("nightly").exit_code in (0, 2)
    again = run("--verbose", "nightly")
    assert again.exit_code in (0, 2), again.stderr
    assert "loose 2026-11: unchanged, skipped" in again.stderr
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        orphans = con.execute(
            "SELECT count(*) FROM (SELECT charge_id FROM allocation_rows UNION ALL SELECT charge_id FROM "
            "allocation_refs) a WHERE NOT EXISTS (SELECT 1 FROM charges c WHERE c.charge_id = a.charge_id)"
        ).fetchone()
        shares = con.execute("SELECT count(*) FROM allocations").fetchone()
    finally:
        con.close()
    assert orphans == (0,)
    assert shares is not None and shares[0] > 0
    assert run("export", "--period", "2026-11", "--format", "focus", "--out", "f.csv").exit_code == 0
    assert len((project.root / "f.csv").read_text(encoding="utf-8").splitlines()) > 1
