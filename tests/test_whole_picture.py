"""The shape of spend: fixed vs elastic, peak vs average, evaluation's share (money written out)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import Project
from focus_files import FOCUS_CONFIG, write_focus


@pytest.mark.usefixtures("ran")
def test_fixed_vs_elastic_with_the_unused_commitment_on_its_own_line(run) -> None:
    result = run("report", "--by", "project,commitment", "--format", "csv")
    rows = {
        (r["project"], r["commitment"]): r["effective_cost"]
        for r in csv.DictReader(io.StringIO(result.stdout))
    }
    # 124 Savings Plan covered p5 hours at the plan's 37.9776/h: the used commitment, fixed cost.
    assert rows[("math-reasoner", "fixed")] == "4709.2224"
    # 720 h x 80.00 committed - 4,709.2224 used: the unused commitment, nobody's experiment.
    assert rows[("", "unused-commitment")] == "52890.7776"
    assert rows[("qwen-coder", "elastic")] == "8099.26338538"  # on demand, plus the off-cloud ledger
    assert ("qwen-coder", "fixed") not in rows


def hourly(hour: int, cost: str, label: str = "qwen-coder-train-sft") -> dict[str, object]:
    return {
        "BilledCost": cost,
        "ResourceId": "i-a",
        "Tags": {"cost-label": label},
        "ChargePeriodStart": f"2026-11-03T{hour:02d}:00:00Z",
        "ChargePeriodEnd": f"2026-11-03T{hour + 1:02d}:00:00Z",
    }


def test_peak_vs_average_of_a_known_hourly_profile(run, project: Project) -> None:
    project.write_config(FOCUS_CONFIG)
    write_focus(
        project.root / "bill.csv",
        [
            hourly(8, "10.00"),
            hourly(9, "30.00"),
            hourly(11, "20.00"),  # 10:00 idle: 4 hours, 60.00
            {
                "BilledCost": "5.00",
                "ChargeCategory": "Credit",
                "Tags": {"cost-label": "qwen-coder-train-sft"},
                "ChargePeriodStart": "2026-11-01T00:00:00Z",
                "ChargePeriodEnd": "2026-12-01T00:00:00Z",
            },
        ],
    )
    (project.root / "experiments.jsonl").write_text("", encoding="utf-8")
    assert run("nightly").exit_code == 0
    result = run("report", "--by", "project", "--shape", "--format", "json")
    report = json.loads(result.stdout)
    assert report["bucket"] == "hour"
    assert report["rows"] == [
        {
            "project": "qwen-coder",
            "currency": "USD",
            "buckets": 4,
            "peak": "30.00",
            "peak_at": "2026-11-03T09:00:00Z",
            "average": "15.00",
            "peak_to_average": "2.00",
            "not_time_resolved": "5.00",  # the month-long credit would fake a peak in one hour
        }
    ]
    table = run("report", "--by", "project", "--shape").stdout
    assert "qwen-coder  USD       4      30.00  2026-11-03T09:00:00Z    15.00  2.00x" in table


def test_daily_only_data_is_shaped_by_day(run, project: Project) -> None:
    project.write_config(FOCUS_CONFIG)
    write_focus(
        project.root / "bill.csv",
        [
            {
                "BilledCost": cost,
                "Tags": {"cost-label": "qwen-coder-data-sft"},
                "ChargePeriodStart": f"2026-11-{day:02d}T00:00:00Z",
                "ChargePeriodEnd": f"2026-11-{day + 1:02d}T00:00:00Z",
            }
            for day, cost in ((1, "3.00"), (2, "9.00"), (3, "3.00"))
        ],
    )
    (project.root / "experiments.jsonl").write_text("", encoding="utf-8")
    run("nightly")
    report = json.loads(run("report", "--by", "project", "--shape", "--format", "json").stdout)
    assert report["bucket"] == "day"
    assert (
        report["rows"][0]["peak"],
        report["rows"][0]["average"],
        report["rows"][0]["peak_to_average"],
    ) == ("9.00", "5.00", "1.80")


@pytest.mark.usefixtures("ran")
def test_gpu_hours_in_use_vs_provisioned(run) -> None:
    report = json.loads(run("report", "--by", "project", "--shape", "--format", "json").stdout)
    gpu = {
        (g["project"], g["method"]): (g["gpu_hours_in_use"], g["gpu_hours_provisioned"])
        for g in report["gpu_hours"]
    }
    # exp-sft-0412: train 18.5 h x 8 + eval 4 h x 8 = 180 in use; billed 22 h + 6 h of those machines x 8 = 224.
    assert gpu[("qwen-coder", "sft")] == ("180.00", "224.00")


@pytest.mark.usefixtures("ran")
def test_eval_share_of_each_experiment_and_method(run) -> None:
    rows = json.loads(run("report", "--by", "method", "--with-metrics", "--format", "json").stdout)["rows"]
    sft = next(r for r in rows if r["level"] == "method" and r["method"] == "sft")
    # eval 406.25 compute + 1,260.00 reviewers = 1,666.25 of 7,754.45: 21.49%
    assert sft["eval_share"] == "0.2149"
    assert (
        "Evaluation: 21.5% of realized cost (teams commonly see 20-40%)"
        in run("reconcile", "exp-sft-0412").stdout
    )
