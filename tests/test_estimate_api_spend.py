"""LLM API lines of an estimate (SPEC §6): judge calls on the rollouts and synthetic samples, priced per
million tokens from the bundled table or config, every expected amount hand arithmetic written here."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.core.config_estimator import EstimatorConfig
from trainledger.estimate.model import estimate

RL = {
    "model_params_b": 7,
    "gpu_type": "H100",
    "steps": 1000,
    "rollout_prompts": 64,
    "group_size": 8,
    "prompt_tokens": 512,
    "response_tokens": 1024,
}
JUDGE = {
    "judge_calls_per_rollout": 1,
    "judge_input_tokens": 2000,
    "judge_output_tokens": 200,
    "judge_model": "claude-sonnet-4-5",
}
SYNTHETIC = {
    "synthetic_samples": 50_000,
    "synthetic_input_tokens_per_sample": 300,
    "synthetic_output_tokens_per_sample": 800,
    "synthetic_model": "gpt-4.1-mini",
}


def api_lines(est) -> dict[str, Decimal | None]:
    return {p.phase: p.cost for p in est.phases() if p.spend == "llm_api"}


def test_judge_calls_are_priced_per_million_tokens_in_the_rollout_phase() -> None:
    est = estimate("rl", {**RL, **JUDGE})
    # 1,000 steps x 64 prompts x 8 samples = 512,000 rollouts, one judge call each;
    # per call 2,000 x $3/M + 200 x $15/M = $0.006 + $0.003 = $0.009 (Anthropic: Sonnet 4.5 $3 / $15).
    assert api_lines(est) == {"rollout": Decimal("4608.00")}
    judge = next(c for c in est.components if c.spend == "llm_api")
    assert (judge.phase, judge.category, judge.gpu_hours) == ("rollout", "compute", None)
    assert judge.tokens == 512_000 * 2_200
    # The GPU rollout line stays its own: judge spend beside GPU spend.
    assert [(p.phase, p.spend) for p in est.phases() if p.phase == "rollout"] == [
        ("rollout", "cloud"),
        ("rollout", "llm_api"),
    ]
    gpu = sum((p.cost for p in est.phases() if p.spend == "cloud" and p.cost is not None), Decimal(0))
    assert est.total == gpu + Decimal("4608.00")
    assert "api_price@claude-sonnet-4-5" in est.assumptions
    assert "platform.claude.com" in est.assumptions["api_price@claude-sonnet-4-5"].source


def test_two_judge_calls_and_synthetic_samples_on_another_model() -> None:
    est = estimate("rl", {**RL, **JUDGE, "judge_calls_per_rollout": 2, **SYNTHETIC})
    # 512,000 x 2 = 1,024,000 calls x $0.009 = $9,216.00.
    # Synthetic: 50,000 x (300 x $0.40/M + 800 x $1.60/M) = 50,000 x ($0.00012 + $0.00128) = $70.00.
    assert api_lines(est) == {"rollout": Decimal("9216.00"), "data": Decimal("70.00")}


def test_an_unknown_model_is_reported_missing_never_priced_zero() -> None:
    est = estimate("rl", {**RL, **JUDGE, "judge_model": "my-judge-v2"})
    assert api_lines(est) == {}
    assert any("judge_model 'my-judge-v2': no price" in m for m in est.missing)
    assert any('[estimator.api_prices."my-judge-v2"]' in m for m in est.missing)


def test_missing_token_counts_or_model_are_reported() -> None:
    without = {k: v for k, v in JUDGE.items() if k not in ("judge_output_tokens", "judge_model")}
    est = estimate("rl", {**RL, **without})
    assert api_lines(est) == {}
    assert any(m.startswith("judge_output_tokens: needed for judge calls") for m in est.missing)
    assert any(m.startswith("judge_model: needed to price judge calls") for m in est.missing)


def test_config_price_wins_over_the_bundled_table() -> None:
    config = EstimatorConfig.model_validate(
        {"api_prices": {"claude-sonnet-4-5": {"input": "1.50", "output": "7.50"}}}
    )
    est = estimate("rl", {**RL, **JUDGE}, config)
    # Batch prices, half: 512,000 x (2,000 x $1.50/M + 200 x $7.50/M) = 512,000 x $0.0045 = $2,304.00.
    assert api_lines(est) == {"rollout": Decimal("2304.00")}
    assert (
        est.assumptions["api_price@claude-sonnet-4-5"].source == '[estimator.api_prices."claude-sonnet-4-5"]'
    )


def test_a_model_only_in_config_is_priced() -> None:
    config = EstimatorConfig.model_validate({"api_prices": {"my-judge-v2": {"input": "0.20", "output": 1}}})
    est = estimate("rl", {**RL, **JUDGE, "judge_model": "my-judge-v2"}, config)
    # 512,000 x (2,000 x $0.20/M + 200 x $1/M) = 512,000 x $0.0006 = $307.20.
    assert api_lines(est) == {"rollout": Decimal("307.20")}


def test_judge_on_a_method_without_rollouts_is_said() -> None:
    sft = {"model_params_b": 7, "gpu_type": "H100", "train_samples": 1000, "avg_tokens_per_sample": 1000}
    est = estimate("sft", {**sft, **JUDGE})
    assert api_lines(est) == {}
    assert any("'sft' has no rollouts" in w for w in est.warnings)


def test_stages_count_synthetic_samples_once_and_judge_calls_per_rl_stage() -> None:
    stage = {"steps": 500, "rollout_prompts": 64, "group_size": 8, "response_tokens": 1024}
    params = {
        "model_params_b": 7,
        "gpu_type": "H100",
        "prompt_tokens": 512,
        **JUDGE,
        **SYNTHETIC,
        "stages": [{"method": "rl", "params": stage}, {"method": "rl", "params": stage}],
    }
    est = estimate(None, params)
    # Each stage 500 x 64 x 8 = 256,000 calls x $0.009 = $2,304.00, two stages; synthetic $70.00 once.
    judged = [c.money for c in est.components if c.spend == "llm_api" and c.phase == "rollout"]
    assert judged == [Decimal("2304.000"), Decimal("2304.000")]
    assert api_lines(est) == {"rollout": Decimal("4608.00"), "data": Decimal("70.00")}


def test_estimate_prints_the_api_lines_and_their_json(tmp_path: Path) -> None:
    params = tmp_path / "params.json"
    params.write_text(json.dumps({**RL, **JUDGE, **SYNTHETIC}), encoding="utf-8")
    runner = CliRunner()
    table = runner.invoke(
        cli, ["estimate", "--method", "rl", "--params", str(params)], catch_exceptions=False
    )
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    assert any(
        "rollout" in line
        and "compute (LLM API)" in line
        and "claude-sonnet-4-5" in line
        and "4,608.00" in line
        for line in lines
    )
    assert any("data" in line and "compute (LLM API)" in line and "70.00" in line for line in lines)
    assert any("512000 x (2000 in x 3/M + 200 out x 15/M) = 4608 USD" in line for line in lines)
    out = runner.invoke(
        cli,
        ["estimate", "--method", "rl", "--params", str(params), "--format", "json"],
        catch_exceptions=False,
    )
    found = json.loads(out.output)
    api = [p for p in found["phases"] if p["spend"] == "llm_api"]
    assert [(p["phase"], p["category"], p["cost"], p["gpu_hours"]) for p in api] == [
        ("data", "compute", "70.00", None),
        ("rollout", "compute", "4608.00", None),
    ]
    assert {p["spend"] for p in found["phases"]} == {"cloud", "llm_api"}
