"""The warehouse carries its schema version: one of schema 2, 3 or 4 (or written before versions were stored) is
brought up to date in place by the next writer and refused by readers until then, one written by a newer
trainledger is refused with one line, and nothing in it changes."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import duckdb
from click.testing import Result

from conftest import ROOT, Project, warehouse_state
from focus_files import FOCUS_CONFIG, experiment, write_focus

# The layout a writer last brought the warehouse to: the digest of the statements that make it.
LAYOUT = ("layout", hashlib.sha256((ROOT / "queries" / "schema" / "warehouse.sql").read_bytes()).hexdigest())
META = [LAYOUT, ("schema_version", "5")]


def stored(project: Project) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute("SELECT key, value FROM trainledger_meta ORDER BY key").fetchall()
    finally:
        con.close()


def test_a_new_warehouse_is_stamped_with_schema_5(run: Callable[..., Result], project: Project) -> None:
    result = run("nightly")
    assert result.exit_code == 0
    assert stored(project) == META
    assert "brought from schema" not in result.stderr  # a new warehouse is not an upgrade


def test_a_warehouse_from_before_versions_is_refused_by_readers_and_stamped_by_the_next_run(
    run: Callable[..., Result], project: Project
) -> None:
    assert run("nightly").exit_code == 0
    original = warehouse_state(project.warehouse)
    original.pop("trainledger_meta")
    con = duckdb.connect(str(project.warehouse))
    # as the release before versions left it: schema 2's layout, without the version and the host column
    con.execute("DROP TABLE trainledger_meta")
    con.execute("ALTER TABLE charges DROP COLUMN host_provider")
    con.close()
    before = warehouse_state(project.warehouse)
    report = run("report")

    assert report.exit_code == 1
    assert report.stderr.strip().splitlines() == [
        f"trainledger: error: {project.warehouse}: written by an older trainledger (schema 2, this version "
        "reads 5): run `trainledger nightly` once to bring it up to date in place (nothing is read again "
        "from the sources)"
    ]
    assert warehouse_state(project.warehouse) == before  # a reader writes nothing
    again = run("nightly")
    assert again.exit_code == 0, again.stderr
    after = warehouse_state(project.warehouse)
    assert after.pop("trainledger_meta") == META
    assert after == original  # brought up to date, not rebuilt: this warehouse's providers were the table's


def test_a_warehouse_from_a_newer_trainledger_is_refused_and_left_alone(
    run: Callable[..., Result], project: Project
) -> None:
    assert run("nightly").exit_code == 0
    con = duckdb.connect(str(project.warehouse))
    con.execute("UPDATE trainledger_meta SET value = '6' WHERE key = 'schema_version'")
    con.close()
    before = warehouse_state(project.warehouse, ledger=True)
    expected = [
        f"trainledger: error: {project.warehouse}: written by a newer trainledger (schema 6, this version "
        "reads 5): upgrade trainledger to read it"
    ]
    for command in (("report",), ("nightly",)):
        result = run(*command)
        assert result.exit_code == 1
        assert result.stderr.strip().splitlines() == expected
    assert warehouse_state(project.warehouse, ledger=True) == before


VM = "/subscriptions/0000-1111/resourceGroups/ml/providers/Microsoft.Compute/virtualMachines/gpu-vm-1"
# What schema 2 stored for a FOCUS file's ProviderName, before the provider table: the name lowercased.
SCHEMA_2_IDS = "CASE provider WHEN 'azure' THEN 'microsoft' WHEN 'oci' THEN 'oracle' ELSE provider END"


def microsoft_and_oracle_month(project: Project) -> None:
    """Four hours of an Azure VM at 12.00 as Microsoft's FOCUS export names them, an Oracle charge of 3.50,
    and a run the log places on the VM from 09:00 to 10:30 under provider ``azure``."""
    hours = [("08", "09"), ("09", "10"), ("10", "11"), ("11", "12")]
    vm = {"ProviderName": "Microsoft", "ServiceName": "Virtual Machines", "x_UsageType": "", "ResourceId": VM}
    rows = [
        {**vm, "ChargePeriodStart": f"2026-11-03T{a}:00:00Z", "ChargePeriodEnd": f"2026-11-03T{b}:00:00Z"}
        for a, b in hours
    ]
    rows = [{**r, "BilledCost": "12.00"} for r in rows]
    rows.append({"ProviderName": "Oracle", "ServiceName": "Block Storage", "BilledCost": "3.50"})
    write_focus(project.root / "bill.csv", rows)
    train = {
        "phase": "train",
        "started_at": "2026-11-03T09:00:00Z",
        "ended_at": "2026-11-03T10:30:00Z",
        "resources": [{"provider": "azure", "resource_id": VM, "gpus": 8}],
    }
    record = experiment("exp-az-1", "qwen-coder", "sft", [train], ended_at="2026-11-03T10:30:00Z")
    (project.root / "experiments.jsonl").write_text(record + "\n", encoding="utf-8")
    project.write_config(FOCUS_CONFIG)


def as_schema_2(path: Path) -> None:
    """Rewrite a warehouse as schema 2 left it: providers as the FOCUS file named them, lowercased (so each
    charge kind's id the hash of that name, and the allocations naming those kinds), no host_provider."""
    con = duckdb.connect(str(path))
    try:
        con.execute(f"UPDATE charges SET provider = {SCHEMA_2_IDS}")
        con.execute(f"UPDATE charge_categories SET provider = {SCHEMA_2_IDS}")
        con.execute(
            f"CREATE TEMP TABLE old_kinds AS SELECT kind_id AS new_id, charge_kind_id(source, {SCHEMA_2_IDS}, "
            "billing_period, billing_account_id, sub_account_id, service_name, charge_category, pricing_category, "
            f"currency) AS kind_id, source, {SCHEMA_2_IDS} AS provider, billing_period, billing_account_id, "
            "sub_account_id, service_name, charge_category, pricing_category, currency FROM charge_kinds"
        )
        con.execute(
            "UPDATE allocation_rows r SET kind_id = o.kind_id FROM old_kinds o WHERE r.kind_id = o.new_id"
        )
        con.execute("DELETE FROM charge_kinds")
        con.execute("INSERT INTO charge_kinds SELECT * EXCLUDE (new_id) FROM old_kinds")
        con.execute("ALTER TABLE charges DROP COLUMN host_provider")
        con.execute("UPDATE trainledger_meta SET value = '2' WHERE key = 'schema_version'")
    finally:
        con.close()


def test_a_schema_2_warehouse_is_brought_to_the_provider_table_in_place(
    run: Callable[..., Result], project: Project
) -> None:
    """Built before the provider table, a warehouse holds `microsoft` and `oracle`: the next `nightly` maps
    them to `azure` and `oci` without reading the bill again, and the run logged on `azure` gets its hours
    (12.00 for 09:00-10:00 and half of 10:00-11:00, 6.00, by hand; the VM's other 30.00 is idle)."""
    microsoft_and_oracle_month(project)
    assert run("nightly").exit_code == 0
    as_schema_2(project.warehouse)
    old = duckdb.connect(str(project.warehouse), read_only=True)
    charge_ids = old.execute("SELECT charge_id, provider FROM charges ORDER BY 1").fetchall()
    old.close()
    assert {p for _, p in charge_ids} == {"microsoft", "oracle"}

    result = run("nightly")

    assert result.exit_code == 0, result.stderr
    assert f"{project.warehouse}: brought from schema 2 to 5 in place" in result.stderr
    assert stored(project) == META
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        after = con.execute("SELECT charge_id, provider, host_provider FROM charges ORDER BY 1").fetchall()
        allocated = con.execute(
            "SELECT provider, rule, coalesce(experiment_id, ''), sum(effective_cost) FROM allocations "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        kinds = con.execute("SELECT DISTINCT provider FROM charge_kinds ORDER BY 1").fetchall()
    finally:
        con.close()
    # The same charges (nothing read again), named by the table.
    assert after == [(i, {"microsoft": "azure", "oracle": "oci"}[p], None) for i, p in charge_ids]
    assert allocated == [
        ("azure", "idle", "", Decimal("30.00")),
        ("azure", "time-window", "exp-az-1", Decimal("18.00")),
        ("oci", "unattributed", "", Decimal("3.50")),
    ]
    # The kinds of the VM's hours the run cuts and of Oracle's charge, whole, summed into a cell.
    assert kinds == [("azure",), ("oci",)]


def test_a_writer_brings_a_warehouse_made_by_other_statements_up_to_date(
    run: Callable[..., Result], project: Project
) -> None:
    """Each writer skips the schema's statements when the warehouse was last brought up to date by the same
    ones; a trainledger whose statements differ (a new view, same version) runs them again."""
    assert run("nightly").exit_code == 0
    con = duckdb.connect(str(project.warehouse))
    con.execute("DROP VIEW resource_names")
    con.execute("UPDATE trainledger_meta SET value = 'an older layout' WHERE key = 'layout'")
    con.close()

    assert run("attribute").exit_code == 0

    assert stored(project) == META
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        assert con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE view_name = 'resource_names'"
        ).fetchone() == (1,)
    finally:
        con.close()


# Schema 3's view: every allocation a stored row, the kind by reference.
SCHEMA_3_VIEW = """
CREATE OR REPLACE VIEW allocations AS
SELECT a.charge_id, a.share_no, k.source, k.provider, k.billing_period, k.billing_account_id, k.sub_account_id,
    a.charge_period_start, a.charge_period_end, a.project, a.phase, a.method, a.experiment_id, a.cost_category,
    k.service_name, k.charge_category, k.pricing_category, a.rule, a.reason, k.currency, a.billed_cost,
    a.effective_cost, a.list_cost
FROM allocation_rows a JOIN charge_kinds k USING (kind_id) WHERE a.share_no > 0
"""


def as_schema_3(path: Path) -> None:
    """Rewrite a warehouse as schema 3 left it: a charge with one share stored as a row of allocation_rows
    (its money, times and kind copied), no allocations by reference."""
    con = duckdb.connect(str(path))
    try:
        kind = (
            "hash(c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id, c.service_name, "
            "c.charge_category, c.pricing_category, c.billing_currency)"
        )
        con.execute(
            f"INSERT INTO charge_kinds SELECT DISTINCT {kind}, c.source, c.provider, c.billing_period, "
            "c.billing_account_id, c.sub_account_id, c.service_name, c.charge_category, c.pricing_category, "
            f"c.billing_currency FROM charges c WHERE {kind} NOT IN (SELECT kind_id FROM charge_kinds)"
        )
        con.execute(
            f"INSERT INTO allocation_rows SELECT r.charge_id, r.share_no, {kind}, c.charge_period_start, "
            "c.charge_period_end, t.project, t.phase, t.method, t.experiment_id, t.cost_category, t.rule, t.reason, "
            "c.billed_cost, c.effective_cost, c.list_cost "
            "FROM allocation_refs r JOIN charges c USING (charge_id) JOIN allocation_tuples t USING (tuple_id)"
        )
        con.execute(SCHEMA_3_VIEW)
        con.execute("DROP TABLE allocation_refs")
        con.execute("DROP TABLE allocation_tuples")
        con.execute("UPDATE trainledger_meta SET value = '3' WHERE key = 'schema_version'")
    finally:
        con.close()


def test_a_schema_3_warehouse_keeps_its_allocations_and_is_brought_to_allocations_by_reference(
    run: Callable[..., Result], project: Project
) -> None:
    """Schema 3 stored every allocation as a row: a reader refuses it with one line, the next `nightly` says
    in one line that it brought it up in place, reads nothing again, and attributes once more, writing the
    charges with one share by reference. The figures are those worked out by hand for the month (the Azure
    VM's 09:00-10:30 run 18.00, its other 30.00 idle, Oracle's 3.50 unattributed)."""
    microsoft_and_oracle_month(project)
    assert run("nightly").exit_code == 0
    as_schema_3(project.warehouse)
    report = run("report", "--by", "provider,rule,experiment", "--format", "csv")

    assert report.exit_code == 1
    assert report.stderr.strip().splitlines() == [
        f"trainledger: error: {project.warehouse}: written by an older trainledger (schema 3, this version "
        "reads 5): run `trainledger nightly` once to bring it up to date in place (nothing is read again "
        "from the sources)"
    ]
    result = run("nightly")

    assert result.exit_code == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if "brought from schema" in line] == [
        f"· {project.warehouse}: brought from schema 3 to 5 in place (charges with one share become allocations "
        "by reference, not copies; the charges placed whole summed once per tuple, kind and day, for reports "
        "and exports); the next attribution runs in full"
    ]
    assert stored(project) == META
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        allocated = con.execute(
            "SELECT provider, rule, coalesce(experiment_id, ''), sum(effective_cost) FROM allocations "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        by_reference = con.execute("SELECT count(*) FROM allocation_refs WHERE share_no = 1").fetchone()
        one_share = con.execute(
            "SELECT count(*) FROM (SELECT charge_id FROM allocations GROUP BY charge_id HAVING count(*) = 1)"
        ).fetchone()
    finally:
        con.close()
    assert allocated == [
        ("azure", "idle", "", Decimal("30.00")),
        ("azure", "time-window", "exp-az-1", Decimal("18.00")),
        ("oci", "unattributed", "", Decimal("3.50")),
    ]
    assert by_reference == one_share


def as_schema_4(path: Path) -> None:
    """Rewrite a warehouse as schema 4 left it: the charges placed whole by reference only, no cells, and no
    kind that only they name."""
    con = duckdb.connect(str(path))
    try:
        con.execute("DROP VIEW allocation_days")
        con.execute("DROP TABLE allocation_cells")
        con.execute("DELETE FROM charge_kinds WHERE kind_id NOT IN (SELECT kind_id FROM allocation_rows)")
        con.execute("UPDATE trainledger_meta SET value = '4' WHERE key = 'schema_version'")
    finally:
        con.close()


def test_a_schema_4_warehouse_is_summed_into_cells_in_place_and_reports_the_same_at_once(
    run: Callable[..., Result], project: Project
) -> None:
    """Schema 4 read every report through the references: a reader refuses it with one line; the next writer
    (here an `ingest`, which attributes nothing) sums the references into cells in place, and `report` gives
    the month's figures worked out by hand (the Azure VM's 09:00-10:30 run 18.00, its other 30.00 idle,
    Oracle's 3.50 unattributed)."""
    microsoft_and_oracle_month(project)
    assert run("nightly").exit_code == 0
    as_schema_4(project.warehouse)
    refused = run("report")

    assert refused.exit_code == 1
    assert "(schema 4, this version reads 5): run `trainledger nightly` once" in refused.stderr
    result = run("ingest")

    assert result.exit_code == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if "brought from schema" in line] == [
        f"· {project.warehouse}: brought from schema 4 to 5 in place (the charges placed whole summed once per "
        "tuple, kind and day, for reports and exports); the next attribution runs in full"
    ]
    assert stored(project) == META
    report = run("report", "--by", "provider,rule,experiment", "--format", "csv")
    assert report.exit_code == 0, report.stderr
    lines = report.stdout.splitlines()
    effective = lines[0].split(",").index("effective_cost")
    assert [(*line.split(",")[:3], Decimal(line.split(",")[effective])) for line in lines[1:]] == [
        ("azure", "idle", "", Decimal("30.00")),
        ("azure", "time-window", "exp-az-1", Decimal("18.00")),
        ("oci", "unattributed", "", Decimal("3.50")),
    ]
