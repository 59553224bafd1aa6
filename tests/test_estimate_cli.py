"""`trainledger estimate` and `report --with-metrics`, as a user runs them."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from conftest import Project
from test_reference_points import ALPACA_7B


@pytest.mark.usefixtures("ran")
def test_estimate_a_logged_experiment_shows_work_totals_and_assumptions(run) -> None:
    result = run("estimate", "exp-rl-0421", "--no-calibration")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.startswith("Estimate for exp-rl-0421 (method rl), money in USD\n")
    assert "policy update (forward+backward)" in out
    # 410.25 GPU-h before the old log-probs forward and the weight sync were counted; with them, over
    # 500 x 4,096 samples x 2,560 tokens = 5.24288e9 tokens: 2 x 7e9 x T / (989e12 x 0.5 x 3600) = 41.2315 h,
    # and 500 rollouts x 14 GB / (671 GB / 12.13 s) x 8 GPUs / 3600 = 0.2812 h: 451.76 (451.77 unrounded);
    # 41.5127 h x 6.88 = 285.61 more rollout dollars on 2,822.54.
    assert re.search(r"^total +451\.77 +3,108\.15$", out, re.M)
    assert "≈ 56.47 h of wall clock on 8 GPUs" in out
    assert "price_per_gpu_hour              6.88" in out
    assert (
        "decode_tokens_per_s_per_gpu@7B  7064              derived: peak 989 TFLOP/s x decode MFU 0.1 / (2 x 7B)"
        in out
    )
    # The derivation: FLOPs -> GPU hours per work item, money per phase, each with its source.
    assert (
        "train    policy update (forward+backward): 6 x 7B x 5.24e+09 tokens = 2.2e+20 FLOPs / (989 TFLOP/s x"
        in out
    )
    assert "train    train: 154.62 GPU-h x 6.88/GPU-h = 1063.77 USD" in out
    assert "total    3108.15 USD" in out


@pytest.mark.usefixtures("ran")
def test_estimate_is_calibrated_by_the_reconciled_runs_of_the_same_method_and_gpu(run) -> None:
    reconciled = json.loads(run("reconcile", "exp-rl-0419", "--format", "json").stdout)
    implied = {c["phase"]: c["implied_mfu"] for c in reconciled["assumptions"]["compute"]}
    result = run("estimate", "exp-rl-0421", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assumptions = json.loads(result.stdout)["assumptions"]
    for phase in ("train", "rollout"):
        assert assumptions[f"mfu_{phase}"]["value"] == implied[phase].rstrip("0")
        assert assumptions[f"mfu_{phase}"]["source"].startswith(
            f"calibrated from 1 run (exp-rl-0419): median implied MFU of their {phase} phase (rl on H100"
        )


@pytest.mark.usefixtures("ran")
def test_estimate_as_markdown(run) -> None:
    result = run("estimate", "exp-opd-0425", "--format", "markdown", "--no-calibration")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("# Estimate: exp-opd-0425\n")
    assert "## Derivation" in result.stdout
    assert "| teacher forward on student tokens |" in result.stdout
    assert "| overhead_factor | 1 | default: nothing added" in result.stdout


def test_estimate_from_a_params_file_as_json(run, project: Project) -> None:
    (project.root / "plan.json").write_text(
        json.dumps(
            {
                "method": "sft",
                "params": {
                    "model_params_b": 8,
                    "gpu_type": "A100",
                    "gpus": 8,
                    "train_samples": 100000,
                    "avg_tokens_per_sample": 2000,
                    "eval_samples": 1000,
                    "eval_tokens_per_sample": 512,
                    "eval_prompt_tokens": 256,
                    "data_cost": "300.00",
                },
            }
        ),
        encoding="utf-8",
    )
    result = run("estimate", "--params", "plan.json", "--format", "json")
    assert result.exit_code == 0, result.stderr
    est = json.loads(result.stdout)
    # 6 x 8e9 x 2e8 = 9.6e18 FLOPs / (312e12 x 0.4 x 3600) = 21.3675 GPU h x 21.958/8 = 58.65.
    assert est["phases"][1] == {
        "phase": "train",
        "category": "compute",
        "flops": 9600000000000000000,
        "gpu_hours": "21.3675",
        "cost": "58.65",
        "spend": "cloud",
    }
    assert est["phases"][0] == {
        "phase": "data",
        "category": "data",
        "flops": None,
        "gpu_hours": None,
        "cost": "300.00",
        "spend": "cloud",
    }
    assert est["assumptions"]["price_per_gpu_hour"]["value"] == "2.74475"
    assert est["missing"] == []
    assert est["source"] == "plan.json"


def test_estimate_explains_what_is_wrong(run, project: Project) -> None:
    result = run("estimate")
    assert result.exit_code == 1  # a usage error is a user error
    assert "give either EXPERIMENT_ID or --params FILE" in result.stderr
    (project.root / "plan.json").write_text('{"model_params_b": 7}', encoding="utf-8")
    result = run("estimate", "--params", "plan.json")
    assert result.exit_code == 1
    assert result.stderr == (
        'trainledger: error: plan.json: no method: add "method": "sft" | "rl" | "opd" | "dpo" or pass --method\n'
    )
    (project.root / "plan.json").write_text(
        '{"method": "rl", "params": {"gpu_type": "H100"}}', encoding="utf-8"
    )
    result = run("estimate", "--params", "plan.json")
    assert result.exit_code == 1
    assert result.stderr == (
        "trainledger: error: plan.json: nothing to estimate: method rl needs model_params_b, steps, "
        "rollout_prompts, response_tokens, reward_params_b, reference_params_b (and gpu_type or instance_type "
        "for GPU hours); see `trainledger estimate --help` for every param\n"
    )
    run("nightly")
    result = run("estimate", "exp-nope")
    assert result.exit_code == 1
    assert result.stderr == (
        "trainledger: error: experiment 'exp-nope' is not in the experiment log; "
        "closest known: exp-opd-0425, exp-rl-0421, exp-rl-0419\n"
    )


@pytest.mark.usefixtures("ran")
def test_report_with_metrics_gives_the_method_cost_benefit_table(run) -> None:
    result = run("report", "--by", "method", "--with-metrics", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    by_key = {(r["level"], r["method"], r["experiment_id"]): r for r in rows}
    rl = by_key[("method", "rl", "")]
    # exp-rl-0419 4,736.78 + the failed exp-rl-0421 497.36; one gain of 0.31 -> 0.47 = 16 points.
    assert rl["cost"] == "5234.13795526"
    assert rl["experiments"] == "2"
    assert rl["target_gain_points"] == "16.00"
    assert rl["cost_per_point"] == "327.13"
    failed = by_key[("experiment", "rl", "exp-rl-0421")]
    assert (failed["status"], failed["target_gain_points"], failed["cost_per_point"]) == ("failed", "", "")
    sft = by_key[("experiment", "sft", "exp-sft-0412")]
    assert (sft["target_gain_points"], sft["general_change_points"], sft["cost_per_point"]) == (
        "14.00",
        "-2.00",
        "553.89",
    )
    opd = by_key[("method", "opd", "")]
    assert (opd["cost"], opd["cost_per_point"]) == ("2207.983", "147.20")


@pytest.mark.usefixtures("ran")
def test_report_with_metrics_as_a_table_and_its_limits(run) -> None:
    result = run("report", "--by", "experiment", "--with-metrics")
    assert result.exit_code == 0
    assert (
        "exp-opd-0425  succeeded  USD       2,207.98  +15.00       -1.00                   147.20"
        in result.stdout
    )
    assert "all (" not in result.stdout
    result = run("report", "--by", "project", "--with-metrics")
    assert result.exit_code == 1
    assert "--with-metrics reports --by method and/or experiment" in result.stderr


def test_ingest_warns_when_an_experiment_cannot_be_estimated(run, project: Project, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(
        json.dumps(
            {
                "experiment_id": "exp-x",
                "project": "p",
                "method": "rl",
                "started_at": "2026-11-01T00:00:00Z",
                "params": {"model_params_b": 7},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    text = project.config.read_text(encoding="utf-8")
    uri_line = next(x for x in text.splitlines() if x.startswith('uri = "') and "experiments" in x)
    project.write_config(text.replace(uri_line, f'uri = "{log}"'))
    result = run("attribute")
    assert result.exit_code == 0
    assert "no estimate for exp-x: gpu_type: not given" in result.stderr


def test_bad_params_in_the_log_stop_the_run_with_one_line(run, project: Project, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    record = {
        "experiment_id": "exp-x",
        "method": "sft",
        "started_at": "2026-11-01T00:00:00Z",
        "params": {"epochs": "two"},
    }
    log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    text = project.config.read_text(encoding="utf-8")
    uri_line = next(x for x in text.splitlines() if x.startswith('uri = "') and "experiments" in x)
    project.write_config(text.replace(uri_line, f'uri = "{log}"'))
    result = run("attribute")
    assert result.exit_code == 1
    assert (
        result.stderr == f"trainledger: error: {log}:1: exp-x: params.epochs: expected a number, got 'two'\n"
    )


def test_catalog_prices_in_the_warehouse_price_the_logged_experiments(run, project: Project) -> None:
    import duckdb

    from trainledger.warehouse import schema

    project.warehouse.parent.mkdir(parents=True)
    con = duckdb.connect(str(project.warehouse))
    schema.create(con, project.warehouse)  # the price sheet as gcp-catalog writes it
    con.execute(
        "INSERT INTO prices (provider, source, sku_id, description, usage_type, gpu_type, regions, unit, "
        "tier_start, currency, price_per_unit, fetched_at) VALUES ('gcp', 'catalog', 'CB8C-0000-0001', "
        "'Nvidia H100 80GB GPU running in Americas', 'OnDemand', 'H100', ['us-central1'], 'h', 0, 'USD', "
        "11.061250, TIMESTAMP '2026-11-30 00:00:00')"
    )
    con.close()
    run("nightly")
    result = run("reconcile", "exp-rl-0421", "--format", "json")
    report = json.loads(result.stdout)
    assert report["assumptions"]["estimator"]["price_per_gpu_hour"]["value"] == "11.06125"
    assert report["assumptions"]["estimator"]["price_per_gpu_hour"]["source"].startswith("GCP Cloud Catalog")
    train = next(r for r in report["rows"] if (r["phase"], r["category"]) == ("train", "compute"))
    assert train["estimated"] == "1710.27"  # 154.6181 GPU h x 11.06125


def test_estimate_help_lists_every_param_with_unit_and_default(run) -> None:
    from trainledger.estimate.params import PARAMS

    result = run("estimate", "--help")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    for p in PARAMS:
        line = next((x for x in lines if x.strip().startswith(p.name + " ")), None)
        assert line is not None, p.name
        assert line.endswith(f"[{p.unit}; default: {p.default}]"), line


def test_a_logged_dpo_experiment_ingests_and_is_estimated(run, project: Project, demo_files: Path) -> None:
    """SPEC §6: "Methods: `sft`, `rl`, `opd`, `dpo`": a log naming dpo is read with the default labels."""
    log = project.root / "experiments.jsonl"
    record = {
        "experiment_id": "exp-dpo-0501",
        "project": "qwen-coder",
        "method": "dpo",
        "status": "succeeded",
        "started_at": "2026-11-20T08:00:00Z",
        "ended_at": "2026-11-20T10:00:00Z",
        "params": {
            "model_params_b": 1,
            "train_samples": 100,
            "avg_tokens_per_sample": 500,
            "gpu_type": "H100",
        },
    }
    log.write_text(
        (demo_files / "experiments.jsonl").read_text(encoding="utf-8") + json.dumps(record) + "\n",
        encoding="utf-8",
    )
    text = project.config.read_text(encoding="utf-8")
    project.write_config(text.replace(f'uri = "{demo_files / "experiments.jsonl"}"', f'uri = "{log}"'))
    assert run("ingest").exit_code == 0
    result = run("estimate", "exp-dpo-0501", "--no-calibration", "--format", "json")
    assert result.exit_code == 0, result.stderr
    est = json.loads(result.stdout)
    # 100 pairs x 2 sequences x 500 tokens = 1e5 tokens: policy 6 x 1e9 x 1e5 = 6e14 FLOPs, reference
    # (the starting policy) 2 x 1e9 x 1e5 = 2e14.
    train = [p for p in est["phases"] if p["phase"] == "train"]
    assert train and train[0]["flops"] == 6 * 10**14 + 2 * 10**14


def test_estimate_warns_on_its_own_output_when_gpus_get_few_tokens_per_step(run, project: Project) -> None:
    # Stanford Alpaca's published setup (tests/test_reference_points.py): 128 samples of at most 512 tokens
    # per optimizer step on 8 A100 = 128 x 512 / 8 = 8,192 tokens per GPU per step, under 10,000.
    alpaca = ALPACA_7B
    (project.root / "alpaca.json").write_text(
        json.dumps({"method": "sft", "params": alpaca}), encoding="utf-8"
    )
    warning = (
        "8,192 tokens per GPU per optimizer step (under 10,000): the default train MFU 0.4 is optimistic"
    )
    table = run("estimate", "--params", "alpaca.json")
    assert table.exit_code == 0, table.stderr
    assert f"Warnings\n  - {warning}" in table.stdout
    assert warning in table.stderr  # said on stderr too, as every estimator warning is
    as_json = run("estimate", "--params", "alpaca.json", "--format", "json")
    assert as_json.exit_code == 0, as_json.stderr
    est = json.loads(as_json.stdout)
    assert [w[: len(warning)] for w in est["warnings"]] == [warning]
    assert est["assumptions"]["tokens_per_gpu_step"] == {
        "value": "8192",
        "source": "batch_size x (max_seq_len or avg_tokens_per_sample) / gpus",
    }
    markdown = run("estimate", "--params", "alpaca.json", "--format", "markdown")
    assert f"## Warnings\n\n- {warning}" in markdown.stdout


def test_estimate_json_gives_every_assumption_a_value_and_its_source(run, project: Project) -> None:
    # An RL plan that exercises the straggler bound, the old log-probs forward and the weight sync.
    plan = {
        "model_params_b": 7,
        "gpu_type": "H100",
        "gpus": 8,
        "steps": 100,
        "rollout_prompts": 64,
        "group_size": 8,
        "prompt_tokens": 500,
        "response_tokens": 2000,
        "max_response_tokens": 8192,
        "reward_params_b": 0,
        "reference_params_b": 7,
    }
    (project.root / "rl.json").write_text(json.dumps({"method": "rl", "params": plan}), encoding="utf-8")
    result = run("estimate", "--params", "rl.json", "--format", "json", "--no-calibration")
    assert result.exit_code == 0, result.stderr
    assumptions = json.loads(result.stdout)["assumptions"]
    assert {"old_log_probs", "weight_sync_gb_per_s", "straggler_bound", "mfu_train", "peak_tflops"} <= set(
        assumptions
    )
    assert [k for k, a in assumptions.items() if set(a) != {"value", "source"}] == []
    assert [k for k, a in assumptions.items() if not str(a["value"]).strip() or not a["source"].strip()] == []
    assert assumptions["weight_sync_gb_per_s"]["source"].startswith("checkpoint-engine README benchmark")
