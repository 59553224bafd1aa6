"""Evaluation's share of spend: an optional budget cap that alerts exactly when the share goes above it."""

from __future__ import annotations

import json

import pytest

from conftest import Project
from focus_files import FOCUS_CONFIG, experiment, write_focus


def bill_with_eval_share(project: Project, eval_cost: str) -> None:
    """exp-1: 60.00 of training plus ``eval_cost`` of evaluation, all tagged."""
    project.write_config(
        FOCUS_CONFIG
        + """
[[budgets]]
name = "eval-cap"
project = "qwen-coder"
period = "2026-11"
max_share = { phase = "eval", share = 0.4 }
"""
    )
    write_focus(
        project.root / "bill.csv",
        [
            {"BilledCost": "60.00", "ResourceId": "i-a", "Tags": {"cost-label": "qwen-coder-train-sft"}},
            {"BilledCost": eval_cost, "ResourceId": "i-b", "Tags": {"cost-label": "qwen-coder-eval-sft"}},
        ],
    )
    (project.root / "experiments.jsonl").write_text(experiment("exp-1", "qwen-coder", "sft", []) + "\n")


@pytest.mark.parametrize(
    ("eval_cost", "share", "alerts"),
    [
        ("39.00", "0.3939", 0),  # 39 / 99
        ("40.00", "0.4000", 0),  # exactly at the cap: allowed
        ("40.01", "0.4001", 1),  # 40.01 / 100.01: above the cap
        ("90.00", "0.6000", 1),
    ],
)
def test_eval_share_alert_fires_exactly_above_the_cap(
    run, project: Project, eval_cost, share, alerts
) -> None:
    bill_with_eval_share(project, eval_cost)
    nightly = run("nightly", "--alerts-out", "alerts.json")
    assert nightly.exit_code == (2 if alerts else 0)
    written = json.loads((project.root / "alerts.json").read_text(encoding="utf-8"))
    assert len(written) == alerts
    result = run("budgets", "--format", "json")
    status = next(s for s in json.loads(result.stdout) if s.get("kind") == "max_share")
    assert (status["phase"], status["share"], status["max_share"]) == ("eval", share, "0.4")
    if alerts:
        assert written[0]["message"].startswith("budget eval-cap (project=qwen-coder) 2026-11: eval is ")
        assert "above its maximum share of 40%" in written[0]["message"]


def test_budgets_table_shows_the_share(run, project: Project) -> None:
    bill_with_eval_share(project, "90.00")
    run("nightly")
    result = run("budgets")
    assert result.exit_code == 2
    assert "eval-cap  project=qwen-coder  2026-11  eval" in result.stdout
    assert "60.0%" in result.stdout and "EXCEEDED" in result.stdout
