"""`report --granularity hour|day|month` on the demo month, as table, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal as D

import pytest
from click.testing import CliRunner, Result

from conftest import Project
from trainledger.cli import cli

BILL = D("73877.57311856")  # the cloud month 67,353.05311856 + the off-cloud ledger 6,524.52


@pytest.fixture
def report(nightly_warehouse: Project):
    def invoke(*args: str) -> Result:
        result = CliRunner().invoke(
            cli, ["--config", str(nightly_warehouse.config), "report", *args], catch_exceptions=False
        )
        assert result.exit_code == 0, result.stderr
        return result

    return invoke


def _csv(result: Result) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_day_buckets_come_first_and_keep_to_the_range(report) -> None:
    rows = _csv(
        report(
            "--by",
            "project",
            "--granularity",
            "day",
            "--since",
            "2026-11-18",
            "--until",
            "2026-11-20",
            "--format",
            "csv",
        )
    )
    assert list(rows[0]) == ["day", "project", "currency", "billed_cost", "effective_cost", "list_cost"]
    assert {r["day"] for r in rows} == {"2026-11-18", "2026-11-19"}
    distill = {r["day"]: r["effective_cost"] for r in rows if r["project"] == "distill-small"}
    # 11-18: 24 h of p5 (55.04) + p4d (21.958) + their volumes; 11-19: 6 h of each.
    assert distill == {"2026-11-18": "1857.45199992", "2026-11-19": "560.46299998"}  # + LLM judge 96.10


def test_hour_buckets_in_json_show_the_idle_half_hour(report) -> None:
    data = json.loads(
        report(
            "--by",
            "rule,project",
            "--granularity",
            "hour",
            "--since",
            "2026-11-19",
            "--until",
            "2026-11-20",
            "--format",
            "json",
        ).stdout
    )
    idle = {r["hour"]: r["effective_cost"] for r in data if r["rule"] == "idle"}
    # teacher idle from 04:00; student idle 05:30-06:00 (half of 21.958)
    assert idle == {"2026-11-19T04:00:00Z": "55.04", "2026-11-19T05:00:00Z": "66.019"}
    assert set(data[0]) == {
        "hour",
        "rule",
        "project",
        "currency",
        "billed_cost",
        "effective_cost",
        "list_cost",
    }


def test_month_table_totals_the_bill(report) -> None:
    lines = report("--by", "rule", "--granularity", "month").stdout.splitlines()
    assert lines[0].split() == ["month", "rule", "currency", "billed_cost", "effective_cost", "list_cost"]
    assert lines[2].split()[:3] == ["2026-11", "idle", "USD"]
    assert lines[-1] == "total billed_cost=73877.57  effective_cost=73877.57  list_cost=18200.33 USD"


def test_consecutive_ranges_add_up_to_the_month(report) -> None:
    def billed(*args: str) -> D:
        return sum(
            (D(r["billed_cost"]) for r in _csv(report("--by", "rule", "--format", "csv", *args))), D(0)
        )

    first = billed("--since", "2026-11-01", "--until", "2026-11-15")
    second = billed("--since", "2026-11-15", "--until", "2026-12-01")
    assert first + second == billed() == BILL
    days = _csv(report("--by", "rule", "--granularity", "day", "--format", "csv"))
    assert len({r["day"] for r in days}) == 30
    assert sum(D(r["billed_cost"]) for r in days) == BILL
