"""A GCP invoice month ties in every output: finance CSV, FOCUS export, report and labels.

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
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import Result

import gcp_month
from conftest import Project


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
    assert ingest.stdout == f"gcp\t{gcp_month.PERIOD}\t25 rows, billed {invoice} USD\n"
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
