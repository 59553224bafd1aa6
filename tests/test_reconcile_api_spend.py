"""`reconcile` of a run that used an LLM API judge: the estimate's judge line beside the Anthropic bill's
spend in the rollout phase, apart from the GPU lines. The month is tests/test_api_cost_runs.py's, worked by
hand there: exp-rl's rollout takes $66.25 of the judge workspace, its GPU bill is $1000.00 of training.

Here exp-rl's params also plan its judge: 10 steps x 25 prompts x 4 samples = 1,000 rollouts, one judge call
each of 5,000 input and 1,000 output tokens on claude-sonnet-4-5 ($3 / $15 per million, Anthropic's page):
1,000 x (5,000 x $3/M + 1,000 x $15/M) = 1,000 x ($0.015 + $0.015) = $30.00 estimated. Realized $66.25:
variance $36.25, 36.25 / 30 = 120.83 %.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from test_api_cost_runs import RUNS, month
from trainledger.cli import cli

PLAN = {
    "model_params_b": 7,
    "gpu_type": "H100",
    "steps": 10,
    "rollout_prompts": 25,
    "group_size": 4,
    "prompt_tokens": 500,
    "response_tokens": 1000,
    "reward_params_b": 0,
    "reference_params_b": 0,
    "judge_calls_per_rollout": 1,
    "judge_input_tokens": 5000,
    "judge_output_tokens": 1000,
    "judge_model": "claude-sonnet-4-5",
}


def planned_month(tmp_path: Path) -> Path:
    config = month(tmp_path)
    records = [dict(r) for r in RUNS]
    records[0]["params"] = PLAN  # exp-rl's start record
    (tmp_path / "experiments.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    return config


def cli_run(config: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--config", str(config), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_reconcile_sets_the_judge_estimate_beside_the_api_bill(tmp_path: Path) -> None:
    config = planned_month(tmp_path)
    cli_run(config, "ingest")
    cli_run(config, "attribute")
    report = json.loads(cli_run(config, "reconcile", "exp-rl", "--format", "json"))
    rows = {(r["phase"], r["category"], r["spend"]): r for r in report["rows"]}
    assert set(rows) == {
        ("rollout", "compute", "cloud"),
        ("rollout", "compute", "llm_api"),
        ("train", "compute", "cloud"),
    }
    judge = rows[("rollout", "compute", "llm_api")]
    assert (judge["estimated"], judge["realized"], judge["variance"], judge["variance_pct"]) == (
        "30.00",
        "66.25",
        "36.25",
        "120.83",
    )
    # The GPU lines are the estimator's GPU work against the GPU bill: the judge's $66.25 is not in them.
    assert rows[("train", "compute", "cloud")]["realized"] == "1000.00"
    assert rows[("rollout", "compute", "cloud")]["realized"] == "0.00"
    assert rows[("rollout", "compute", "cloud")]["estimated"] is not None
    # Nor is it cloud compute: an API bill bought no GPU hours, so no implied GPU hours come from it.
    rollout = next(c for c in report["assumptions"]["compute"] if c["phase"] == "rollout")
    assert rollout["realized_compute"] is None and rollout["implied_gpu_hours"] is None
    # The workspace's weight 3 is the run's share of the day, not 3 GPUs: no logged GPU hours from it.
    assert rollout["logged_gpu_hours"] is None
    text = cli_run(config, "reconcile", "exp-rl")
    judge_line = next(line for line in text.splitlines() if "compute (LLM API)" in line)
    assert "rollout" in judge_line and "30.00" in judge_line and "66.25" in judge_line
