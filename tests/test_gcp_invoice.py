"""A GCP invoice month ties in every output (finance CSV, FOCUS export, report, labels), and a run logged by
any of its instances' names gets their cost.

The month (tests/gcp_month.py) has committed-use, sustained-use, promotional, free-trial and free-tier
credits, tax, a rounding line and a negate-and-remonetise correction. The invoice total is computed here
from the JSON Lines file read with ``json`` into Decimals: cost plus credits over every row of the
invoice month, as Google's invoice adds it up.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import Result

import gcp_month
from conftest import Project
from gcp_fakes import ComputeFake


def gcp_config(export: Path, extra: str = "") -> str:
    return f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{export}"\n{extra}'


@pytest.fixture
def month(project: Project) -> Path:
    return gcp_month.write(project.root / "export" / "billing.json")


def column_sum(text: str, column: str) -> Decimal:
    return sum((Decimal(r[column]) for r in csv.DictReader(io.StringIO(text)) if r[column]), Decimal(0))


def test_the_month_has_every_kind_of_credit(month: Path) -> None:
    rows = gcp_month.read_rows(month)
    kinds = {c["type"] for r in rows for c in r["credits"]}
    assert kinds == {"COMMITTED_USAGE_DISCOUNT", "SUSTAINED_USAGE_DISCOUNT", "PROMOTION", "FREE_TIER"}
    assert {r["cost_type"] for r in rows} == {"regular", "tax", "rounding_error"}
    # Hand arithmetic: 4 h x 2 VMs x (78.384 - 58.788 + 6.160544 - 1.232109), the RAM hour as corrected
    # (0.991 - 0.1982), the commitment fee, storage fully credited, egress half, tax, rounding.
    hourly = Decimal("78.384") - Decimal("58.788") + Decimal("6.160544") - Decimal("1.232109")
    by_hand = (
        8 * hourly
        + Decimal("0.7928")
        + Decimal("470.304")
        + Decimal("0.12")
        + Decimal("41.87")
        - Decimal("0.000321")
    )
    assert gcp_month.invoice_total(rows) == by_hand == Decimal("709.281959")
    assert sum((r["cost"] for r in rows), Decimal(0)) != by_hand  # credits matter


def test_billed_cost_ties_to_the_invoice_in_every_output(
    run: Callable[..., Result], project: Project, month: Path
) -> None:
    invoice = gcp_month.invoice_total(gcp_month.read_rows(month))
    project.write_config(gcp_config(month))
    ingest = run("ingest")
    assert ingest.exit_code == 0, ingest.stderr
    # shown to the cent, as `report` shows money; the exact total is checked in every output below
    assert ingest.stdout == f"gcp\t{gcp_month.PERIOD}\t25 rows, billed {invoice:,.2f} USD\n"
    assert run("attribute").exit_code == 0

    assert run("export", "--period", gcp_month.PERIOD, "--out", "finance.csv").exit_code == 0
    finance = (project.root / "finance.csv").read_text(encoding="utf-8")
    assert column_sum(finance, "billed_cost") == invoice
    assert column_sum(finance, "effective_cost") == invoice  # no amortisation on GCP: net of credits too

    focus = run("export", "--period", gcp_month.PERIOD, "--format", "focus", "--out", "focus.csv")
    assert focus.exit_code == 0, focus.stderr
    focus_text = (project.root / "focus.csv").read_text(encoding="utf-8")
    assert column_sum(focus_text, "BilledCost") == invoice
    assert column_sum(focus_text, "EffectiveCost") == invoice

    report = run("report", "--by", "project,category", "--format", "csv")
    assert report.exit_code == 0, report.stderr
    assert column_sum(report.stdout, "effective_cost") == invoice

    labels = run("labels", "--period", gcp_month.PERIOD, "--format", "json")
    coverage = json.loads(labels.stdout)["coverage"]
    assert sum(Decimal(r["billed_cost"]) for r in coverage) == invoice
    assert sum(Decimal(r["effective_cost"]) for r in coverage) == invoice


# ---------------------------------------------------------------------------------------------------------
# A run logged by any of the instance's names (SPEC §5), with and without the gcp-labels inventory.
# ---------------------------------------------------------------------------------------------------------

NAME_FORMS = {
    "instance name": lambda vm: vm[0],
    "numeric id": lambda vm: vm[1],
    "global name": lambda vm: gcp_month.global_name(vm[1]),
}


def run_log(form: str) -> str:
    name = NAME_FORMS[form]
    start = gcp_month.RUN_START
    end = start + timedelta(hours=gcp_month.HOURS)
    times = {
        "started_at": start.isoformat().replace("+00:00", "Z"),
        "ended_at": end.isoformat().replace("+00:00", "Z"),
    }
    record = {
        "experiment_id": "exp-rl-gcp-0105",
        "project": "math-reasoner",
        "method": "rl",
        "status": "succeeded",
        **times,
        "phases": [
            {"phase": "rollout", **times,
             "resources": [{"provider": "gcp", "resource_id": name(gcp_month.ROLLOUT), "gpus": 8}]},
            {"phase": "train", **times,
             "resources": [{"provider": "gcp", "resource_id": name(gcp_month.TRAINER), "gpus": 8}]},
        ],
    }  # fmt: skip
    return json.dumps(record) + "\n"


def instances() -> dict[str, list[dict[str, Any]]]:
    zone = f"https://www.googleapis.com/compute/v1/projects/{gcp_month.PROJECT['id']}/zones/{gcp_month.ZONE}"
    return {
        gcp_month.PROJECT["id"]: [
            {"kind": "compute#instance", "id": vm_id, "name": name, "zone": zone, "labels": labels,
             "status": "RUNNING", "selfLink": f"{zone}/instances/{name}"}
            for name, vm_id, labels in gcp_month.INSTANCES
        ]
    }  # fmt: skip


@pytest.mark.parametrize("inventory", [False, True], ids=["bill alone", "with inventory"])
@pytest.mark.parametrize("form", list(NAME_FORMS))
def test_a_run_logged_by_any_name_gets_its_instances_cost(
    run: Callable[..., Result], project: Project, month: Path, form: str, inventory: bool
) -> None:
    rows = gcp_month.read_rows(month)
    names = {vm[0] for vm in gcp_month.INSTANCES}
    on_the_run = [r for r in rows if r.get("resource", {}).get("name") in names]
    expected = sum((gcp_month.net(r) for r in on_the_run), Decimal(0))
    assert expected == Decimal("196.98828")  # 8 VM-hours x 24.524435, and the corrected RAM hour 0.7928

    (project.root / "experiments.jsonl").write_text(run_log(form), encoding="utf-8")
    sources = gcp_config(month)
    with ComputeFake(instances(), {gcp_month.PROJECT["id"]: gcp_month.PROJECT["number"]}) as compute:
        if inventory:
            sources += (
                f'\n[[sources]]\nname = "gce"\nkind = "gcp-labels"\nproject = "{gcp_month.PROJECT["id"]}"\n'
                f'api_endpoint = "{compute.url}"\n'
            )
        project.write_config(sources + '\n[experiments]\nuri = "experiments.jsonl"\n')
        assert run("ingest").exit_code == 0
    assert run("attribute").exit_code == 0

    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        by_rule = con.execute(
            "SELECT a.rule, a.experiment_id, sum(a.effective_cost) FROM allocations a JOIN charges c "
            "USING (charge_id) WHERE c.resource_name IN ('rl-rollout-01', 'rl-trainer-01') GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    rollout = sum(
        (gcp_month.net(r) for r in on_the_run if r["resource"]["name"] == "rl-rollout-01"), Decimal(0)
    )
    # The unlabelled rollout VM by the log's window; the labelled trainer by its tags, carrying the run.
    assert by_rule == [
        ("tag", "exp-rl-gcp-0105", expected - rollout),
        ("time-window", "exp-rl-gcp-0105", rollout),
    ]
    report = run("report", "--by", "experiment", "--format", "csv")
    assert {
        r["experiment_id"]: Decimal(r["effective_cost"]) for r in csv.DictReader(io.StringIO(report.stdout))
    }["exp-rl-gcp-0105"] == expected
