"""The estimator's model of MoE, long rollouts, attention, recompute, LoRA, critics, DPO, overhead and
multi-stage plans, each against FLOPs and hours computed by hand; and its checking of the params."""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest

from conftest import ROOT
from trainledger.core.errors import InputError
from trainledger.estimate.model import estimate
from trainledger.estimate.params import PARAMS

H100 = Decimal("989e12")


def work(est, name: str):
    return next(c for c in est.components if c.work == name)


def test_moe_flops_use_active_parameters_and_decode_speed_the_total() -> None:
    est = estimate(
        "rl",
        {
            "model_params_b": 671,
            "active_params_b": 37,
            "gpu_type": "H800",
            "gpus": 512,
            "steps": 16,
            "rollout_prompts": 32,
            "group_size": 16,
            "prompt_tokens": 0,
            "response_tokens": 1000,
            "max_response_tokens": 32768,
            "steps_per_rollout": 16,
            "reward_params_b": 0,
            "reference_params_b": 0,
        },
    )
    # 8,192 samples x 1,000 tokens = 8.192e6 tokens; update 6 x 37e9 x T.
    assert work(est, "policy update (forward+backward)").flops == Decimal("1.818624e18")
    # Throughput: 989e12 x 0.10 / (2 x 37e9) = 1,336.49 tok/s/GPU.
    assert est.assumptions["decode_tokens_per_s_per_gpu@37B"].value == "1336"
    # One sequence: 1,342 GB of BF16 weights over 5 nodes (40 x 40 GB usable) at half of 3.35 TB/s each:
    # 0.5 x 40 x 3,350 / 1,342 = 49.925 tok/s; 1 rollout x 32,768 / 49.925 / 3600 x 512 GPUs = 93.3459 GPU-h,
    # on top of the throughput-bound 8.192e6 / 1,336.49 / 3600 = 1.7026 GPU-h: 95.0485.
    assert est.assumptions["decode_tokens_per_s_per_sequence"].value == "49.9"
    generation = work(est, "policy generation (decode)")
    assert generation.rate == "longest sample + throughput"
    assert generation.gpu_hours is not None
    assert generation.gpu_hours.quantize(Decimal("0.0001")) == Decimal("95.0485")
    speed = est.assumptions["decode_tokens_per_s_per_sequence"].source
    assert "40-GPU replica" in speed
    assert "DeepSeek-V3/R1 inference system overview" in speed  # MoE at large batch: every expert streams
    assert "14.8k output tok/s per 8-H800 node" in est.assumptions["decode_tokens_per_s_per_gpu@37B"].source


def test_a_synchronous_rollout_adds_its_longest_samples_steps_to_the_throughput() -> None:
    base = {
        "model_params_b": 7,
        "gpu_type": "H100",
        "gpus": 8,
        "steps": 10,
        "rollout_prompts": 8,
        "group_size": 2,
        "prompt_tokens": 0,
        "response_tokens": 1000,
        "reward_params_b": 0,
        "reference_params_b": 0,
        "decode_tokens_per_s_per_gpu": 1000,
    }
    # Throughput: 160 samples x 1,000 tokens / 1,000 tok/s / 3600 = 0.0444 GPU-h.
    # Longest sample: 10 rollouts x 8,000 tokens / 50 tok/s / 3600 x 8 GPUs = 3.5556 GPU-h; together 3.6000.
    est = estimate("rl", {**base, "max_response_tokens": 8000, "decode_tokens_per_s_per_sequence": 50})
    generation = work(est, "policy generation (decode)")
    assert generation.gpu_hours.quantize(Decimal("0.0001")) == Decimal("3.6000")
    assert generation.rate == "longest sample + throughput"
    assert "Pope et al. 2022" in est.assumptions["straggler_bound"].source
    # 7B on one H100: 14 GB fits in half of 80 GB, 0.5 x 3,350 / 14 = 119.64 tok/s; 10 x 1,000 / 119.64 / 3600
    # x 8 = 0.1857 GPU-h, plus the 0.0444 of throughput = 0.2302.
    est = estimate("rl", {**base, "max_response_tokens": 1000})
    assert est.assumptions["decode_tokens_per_s_per_sequence"].value == "119.6"
    assert work(est, "policy generation (decode)").gpu_hours.quantize(Decimal("0.0001")) == Decimal("0.2302")
    # A fast sequence adds little: 10 x 1,000 / 10,000 / 3600 x 8 = 0.0022 GPU-h; 0.0467 in all.
    fast = estimate("rl", {**base, "max_response_tokens": 1000, "decode_tokens_per_s_per_sequence": 10_000})
    assert work(fast, "policy generation (decode)").gpu_hours.quantize(Decimal("0.0001")) == Decimal("0.0467")
    assert fast.assumptions["straggler_bound"].value == "0.00222 GPU-h added to the throughput-bound 0.0444"
    no_gpus = estimate("rl", {**{k: v for k, v in base.items() if k != "gpus"}, "max_response_tokens": 1000})
    assert "gpus: needed for the straggler bound" in no_gpus.missing[-1]
    with pytest.raises(InputError, match="max_response_tokens: 500 is below response_tokens 1000"):
        estimate("rl", {**base, "max_response_tokens": 500})


def test_attention_is_its_own_line_and_recompute_adds_a_forward_pass() -> None:
    base = {"model_params_b": 1, "gpu_type": "H100", "train_samples": 10, "avg_tokens_per_sample": 100}
    plain = estimate("sft", base)
    assert plain.assumptions["attention"].value == "ignored"
    est = estimate("sft", {**base, "num_layers": 2, "hidden_size": 10, "max_seq_len": 400})
    # T = 1,000 tokens; per token forward 2 x 2 layers x 400 ctx x 10 = 16,000; training 3x = 48,000 x T.
    assert work(est, "SFT attention").flops == Decimal("4.8e7")
    assert work(est, "SFT forward+backward").flops == Decimal("6e12")
    est = estimate("sft", {**base, "num_layers": 2, "hidden_size": 10, "activation_recompute": True})
    assert work(est, "SFT forward+backward+recompute").flops == Decimal("8e12")  # 8 x 1e9 x 1,000
    assert work(est, "SFT attention").flops == Decimal("1.6e7")  # 4 x 2 x 2 x 100 x 10 x 1,000
    lora = estimate("sft", {**base, "lora_rank": 16})
    assert work(lora, "SFT LoRA").flops == Decimal("4e12")


def test_ppo_critic_and_dpo() -> None:
    est = estimate(
        "rl",
        {
            "model_params_b": 1,
            "value_params_b": 2,
            "steps": 1,
            "rollout_prompts": 10,
            "prompt_tokens": 50,
            "response_tokens": 50,
            "reward_params_b": 0,
            "reference_params_b": 0,
            "ppo_epochs": 2,
        },
    )
    # 10 samples x 100 tokens = 1,000; critic forward 2 x 2e9 x 1,000, update 6 x 2e9 x 2,000 (2 PPO epochs).
    assert work(est, "value model forward").flops == Decimal("4e12")
    assert work(est, "value model update (forward+backward)").flops == Decimal("2.4e13")
    dpo = estimate("dpo", {"model_params_b": 1, "train_samples": 100, "avg_tokens_per_sample": 500})
    # 100 pairs x 2 sequences x 500 tokens = 1e5 tokens: policy 6 x 1e9 x T, reference 2 x 1e9 x T.
    assert work(dpo, "DPO policy forward+backward").flops == Decimal("6e14")
    assert work(dpo, "DPO reference forward").flops == Decimal("2e14")
    assert dpo.assumptions["reference_params_b"].source == "default: the reference is the starting policy"


def test_overhead_is_always_printed_and_scales_each_phase() -> None:
    base = {"model_params_b": 1, "gpu_type": "H100", "train_samples": 1000, "avg_tokens_per_sample": 1800}
    assert estimate("sft", base).assumptions["overhead_factor"].value == "1"
    est = estimate("sft", {**base, "overhead_factor": "1.5"})
    # 6 x 1e9 x 1.8e6 = 1.08e16 / (989e12 x 0.4 x 3600) = 0.0075834 GPU-h, plus half of it again.
    overhead = work(est, "overhead x1.5 (evaluations, checkpoints, restarts, queueing)")
    assert overhead.gpu_hours.quantize(Decimal("1e-9")) == Decimal("0.003791709")
    with pytest.raises(InputError, match=r"overhead_factor: expected a number >= 1, got '0\.5'"):
        estimate("sft", {**base, "overhead_factor": "0.5"})


def test_stages_are_estimated_one_by_one_and_summed() -> None:
    shared = {"model_params_b": 1, "gpu_type": "H100", "price_per_gpu_hour": 2}
    sft = {"train_samples": 1000, "avg_tokens_per_sample": 1000}
    rl = {"steps": 10, "rollout_prompts": 10, "prompt_tokens": 0, "response_tokens": 100}
    rl |= {"reward_params_b": 0, "reference_params_b": 0}
    est = estimate(
        None,
        {**shared, "stages": [{"method": "sft", "params": sft}, {"method": "rl", "params": rl}]},
    )
    alone = [estimate("sft", {**shared, **sft}), estimate("rl", {**shared, **rl})]
    assert est.gpu_hours == sum((e.gpu_hours or 0 for e in alone), Decimal(0))
    assert [c.work for c in est.components][:2] == [
        "stage 1 (sft): SFT forward+backward",
        "stage 2 (rl): policy generation (decode)",
    ]
    assert est.assumptions["price_per_gpu_hour"].value == "2"
    with pytest.raises(InputError, match=r"stages\[1\]: gpu_type: set at the top level"):
        estimate(None, {**shared, "stages": [{"method": "sft", "params": {**sft, "gpu_type": "A100"}}]})
    with pytest.raises(InputError, match=r"stages\[1\]: method 'ppo' is not one of sft, rl, opd, dpo"):
        estimate(None, {**shared, "stages": [{"method": "ppo", "params": sft}]})


def test_unknown_params_warn_with_the_closest_key_and_strict_refuses_them() -> None:
    params = {
        "model_params_b": 1,
        "train_samples": 1,
        "avg_tokens_per_sample": 1,
        "epoch": 2,
        "colour": "red",
    }
    est = estimate("sft", params)
    assert est.warnings == [
        "params.epoch: unknown, ignored; did you mean epochs?",
        "params.colour: unknown, ignored; not an estimator param (see `trainledger estimate --help`)",
    ]
    with pytest.raises(InputError, match=r"^exp-1: params.epoch: unknown, ignored; did you mean epochs\?"):
        estimate("sft", params, where="exp-1", strict=True)
    with pytest.raises(InputError, match="active_params_b: 40 is more than model_params_b 37"):
        estimate("sft", {**params, "model_params_b": 37, "active_params_b": 40})


def test_readme_documents_every_param_with_unit_and_default() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Estimates and post-mortems", 1)[1].split("\n## ", 1)[0]
    for p in PARAMS:
        row = re.search(rf"^\| `{p.name}` \| (.+?) \| (.+?) \| (.+?) \|$", section, re.MULTILINE)
        assert row, f"README's estimator section has no row for {p.name}"
        assert row.group(1) == p.unit and row.group(2) == p.default, p.name


def _expected_longest_by_integration(mean: float, cut: float, samples: int) -> float:
    """Independent of the estimator's closed form: the exponential scale by float bisection, then
    E[longest] = integral over [0, cut] of P(longest > x), by the midpoint rule."""
    low, high = mean, mean * 64
    for _ in range(200):
        mu = (low + high) / 2
        low, high = (mu, high) if mu * (1 - math.exp(-cut / mu)) < mean else (low, mu)
    steps = 200_000
    width = cut / steps
    return sum(1 - (1 - math.exp(-(i + 0.5) * width / mu)) ** samples for i in range(steps)) * width


def test_padded_batches_cost_their_expected_longest_sample() -> None:
    base = {
        "model_params_b": 1,
        "gpu_type": "A100",
        "gpus": 8,
        "train_samples": 1000,
        "avg_tokens_per_sample": 150,
        "max_seq_len": 512,
        "batch_size": 128,
    }
    packed = estimate("sft", base)
    assert packed.assumptions["packing"].value == "true"
    assert work(packed, "SFT forward+backward").flops == Decimal("9e14")  # 6 x 1e9 x 1,000 x 150
    padded = estimate("sft", {**base, "packing": False, "micro_batch_size": 4})
    longest = _expected_longest_by_integration(150, 512, 4)  # about 304 tokens
    value = padded.assumptions["padded_tokens_per_sample"].value
    assert abs(float(value) - longest) < 0.1
    flops = work(padded, "SFT forward+backward").flops
    assert abs(float(flops) / (6e9 * 1000) - longest) < 0.01
    # Without micro_batch_size: batch_size / gpus = 16 samples padded together.
    sixteen = estimate("sft", {**base, "packing": False})
    assert sixteen.assumptions["micro_batch_size"].source.startswith("batch_size / gpus")
    assert (
        abs(
            float(sixteen.assumptions["padded_tokens_per_sample"].value)
            - (_expected_longest_by_integration(150, 512, 16))
        )
        < 0.1
    )
    # A micro-batch of one pads nothing; no way to know the micro-batch: every sample padded to the cut.
    one = estimate("sft", {**base, "packing": False, "micro_batch_size": 1})
    assert Decimal(one.assumptions["padded_tokens_per_sample"].value) == Decimal("150.0")
    blind = estimate("sft", {k: v for k, v in base.items() if k != "batch_size"} | {"packing": False})
    assert work(blind, "SFT forward+backward").flops == Decimal("3.072e15")  # 6 x 1e9 x 1,000 x 512
    no_cut = estimate("sft", {k: v for k, v in base.items() if k != "max_seq_len"} | {"packing": False})
    assert no_cut.missing == [
        "max_seq_len: needed with packing false (the padded length); FLOPs on avg_tokens_per_sample"
    ]
    with pytest.raises(InputError, match="avg_tokens_per_sample: 600 is above max_seq_len 512"):
        estimate("sft", {**base, "packing": False, "avg_tokens_per_sample": 600})
    with pytest.raises(InputError, match=r"params\.packing: expected true or false"):
        estimate("sft", {**base, "packing": "no"})


def test_rl_counts_the_old_log_probs_and_the_weight_sync() -> None:
    est = estimate(
        "rl",
        {
            "model_params_b": 70,
            "gpu_type": "H100",
            "gpus": 64,
            "steps": 100,
            "steps_per_rollout": 4,
            "rollout_prompts": 64,
            "group_size": 8,
            "prompt_tokens": 0,
            "response_tokens": 1000,
            "reward_params_b": 0,
            "reference_params_b": 0,
        },
    )
    # 100 x 64 x 8 = 51,200 samples x 1,000 tokens: old log-probs 2 x 70e9 x 5.12e7 = 7.168e18 FLOPs.
    assert work(est, "policy old log-probs forward").flops == Decimal("7.168e18")
    assert "veRL" in est.assumptions["old_log_probs"].source
    # 25 rollouts x 140 GB / (671 GB / 12.13 s) = 2.5309 s each, x 64 GPUs / 3600 = 1.1248 GPU-h.
    sync = work(est, "policy weight sync to the rollout engine")
    assert sync.gpu_hours.quantize(Decimal("0.0001")) == Decimal("1.1248")
    assert est.assumptions["weight_sync_gb_per_s"].value == "55.3"
    assert "checkpoint-engine" in est.assumptions["weight_sync_gb_per_s"].source
