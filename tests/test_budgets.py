"""Budgets: spend against [[budgets]] thresholds, exit code 2 and the alert JSON a scheduler forwards."""

from __future__ import annotations

import json

import pytest

from conftest import Project, demo_config

MATH_REASONER_NOVEMBER = "5429.28466375"  # EffectiveCost of everything labelled math-reasoner in 2026-11


@pytest.fixture(autouse=True)
def demo_budget(project: Project, demo_files) -> None:
    """These tests are about the demo's own budget, which crosses 80%."""
    project.write_config(demo_config(demo_files, budget=True))


def test_nightly_exits_2_and_writes_the_alerts_when_the_demo_budget_crosses_80_percent(
    run, project: Project
) -> None:
    result = run("nightly")
    assert result.exit_code == 2
    assert (
        "budget math-reasoner-november (project=math-reasoner) 2026-11: spent 5429.28 USD of 6000.00, 90.5%, "
        "crosses the 80% threshold" in result.stderr
    )
    alerts_file = project.root / "exports" / "alerts.json"
    assert f"alerts\t{alerts_file}\t1 crossed threshold(s)" in result.stdout
    alerts = json.loads(alerts_file.read_text(encoding="utf-8"))
    assert alerts == [
        {
            "budget": "math-reasoner-november",
            "scope": {"project": "math-reasoner"},
            "period": "2026-11",
            "currency": "USD",
            "amount": "6000.00",
            "spent": MATH_REASONER_NOVEMBER,
            "remaining": "570.71533625",
            "used": "0.9049",
            "thresholds": ["0.8", "1.0"],
            "crossed": ["0.8"],
            "threshold": "0.8",
            "threshold_amount": "4800.00",
            "message": "budget math-reasoner-november (project=math-reasoner) 2026-11: spent 5429.28 USD of "
            "6000.00, 90.5%, crosses the 80% threshold",
        }
    ]


def test_alerts_out_overrides_the_exports_folder(run, project: Project) -> None:
    assert run("nightly", "--alerts-out", "alerts/now.json").exit_code == 2
    assert len(json.loads((project.root / "alerts/now.json").read_text(encoding="utf-8"))) == 1
    assert not (project.root / "exports" / "alerts.json").exists()


def test_no_crossing_exits_0_and_clears_the_alerts_file(run, project: Project) -> None:
    project.write_config(
        project.config.read_text(encoding="utf-8").replace('amount = "6000.00"', 'amount = "20000.00"')
    )
    result = run("nightly")
    assert result.exit_code == 0, result.stderr
    assert json.loads((project.root / "exports" / "alerts.json").read_text(encoding="utf-8")) == []


def test_budgets_lists_spend_and_exits_2_with_alert_json(run, project: Project) -> None:
    run("nightly")
    result = run("budgets", "--alerts-out", "alerts.json")
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "budget",
        "scope",
        "period",
        "currency",
        "amount",
        "spent",
        "remaining",
        "used",
        "thresholds",
        "crossed",
    ]
    assert lines[2].split() == [
        "math-reasoner-november",
        "project=math-reasoner",
        "2026-11",
        "USD",
        "6,000.00",
        "5,429.28",
        "570.72",
        "90.5%",
        "80%,",
        "100%",
        "80%",
    ]
    assert "trainledger: alert: budget math-reasoner-november" in result.stderr
    assert json.loads((project.root / "alerts.json").read_text(encoding="utf-8"))[0]["threshold"] == "0.8"


def test_budgets_by_method_experiment_and_every_month(run, project: Project) -> None:
    project.write_config(
        project.config.read_text(encoding="utf-8")
        + """
[[budgets]]
name = "rl-monthly"
method = "rl"
period = "monthly"
amount = "5000"
thresholds = [0.5, 1.0]

[[budgets]]
name = "sft-0412"
experiment = "exp-sft-0412"
period = "2026-11"
amount = "10000.00"
"""
    )
    run("nightly")
    result = run("budgets", "--format", "json")
    assert result.exit_code == 2
    statuses = {s["budget"]: s for s in json.loads(result.stdout)}
    # rl: exp-rl-0419 4,736.78 + exp-rl-0421 497.36 + checkpoints tagged math-reasoner-train-rl 195.15.
    assert statuses["rl-monthly"]["spent"] == MATH_REASONER_NOVEMBER
    assert statuses["rl-monthly"]["crossed"] == ["0.5", "1.0"]
    # cloud 1,328.20 + the off-cloud ledger 6,428.42 (labelling, reviewers, LLM judge)
    assert statuses["sft-0412"]["spent"] == "7754.446274205"
    assert statuses["sft-0412"]["crossed"] == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('period = "Nov-2026"', "period: expected YYYY-MM or \"monthly\", got 'Nov-2026'"),
        (
            "thresholds = [80]",
            "thresholds: expected fractions of the amount such as 0.8 or 1.0, got 80",
        ),
        ('amount = "-5"', "amount: expected an amount > 0, got -5"),
    ],
)
def test_bad_budget_config_is_one_line_naming_the_key(run, project: Project, line: str, message: str) -> None:
    key = line.split(" = ")[0]
    text = project.config.read_text(encoding="utf-8")
    original = next(x for x in text.splitlines() if x.startswith(f"{key} = "))
    project.write_config(text.replace(original, line))
    result = run("budgets")
    assert result.exit_code == 1
    assert result.stderr == (
        f"trainledger: error: trainledger.toml: [[budgets]] #1 (name 'math-reasoner-november').{message}\n"
    )
