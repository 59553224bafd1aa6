"""Every ``params`` key the estimator reads, with its unit and default, and typed access to them.

The list is the single source for the unknown-key check (a key not in it is a warning naming the closest
known one), for ``estimate --help`` and for the README table, so the three cannot drift apart.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from trainledger.core.errors import InputError
from trainledger.core.money import to_decimal


@dataclass(frozen=True)
class Param:
    name: str
    unit: str
    default: str
    meaning: str


PARAMS: tuple[Param, ...] = (
    Param("model_params_b", "billions", "required", "trained model (policy, student); with MoE the total"),
    Param(
        "active_params_b", "billions", "model_params_b", "MoE: parameters active per token; FLOPs use them"
    ),
    Param("teacher_params_b", "billions", "required for opd", "OPD teacher (total)"),
    Param("teacher_active_params_b", "billions", "teacher_params_b", "MoE teacher: active parameters"),
    Param(
        "reference_params_b", "billions", "rl: reported; dpo: model_params_b", "KL / DPO reference (0: none)"
    ),
    Param("reference_active_params_b", "billions", "reference_params_b", "MoE reference: active parameters"),
    Param("reward_params_b", "billions", "rl: reported", "reward model (0: rule-based verifier, no GPU)"),
    Param("reward_active_params_b", "billions", "reward_params_b", "MoE reward model: active parameters"),
    Param(
        "value_params_b",
        "billions",
        "none (no critic)",
        "PPO critic: forward and train on every rollout token",
    ),
    Param(
        "gpu_type", "name", "from instance_type", "GPU type (A100, H100, H800, H200, B200, L4, L40S, A10G)"
    ),
    Param(
        "gpus", "GPUs", "none", "GPUs held; wall clock, the straggler bound and the utilisation check use it"
    ),
    Param("instance_type", "name", "none", "cloud instance type, priced per GPU from the sheet or config"),
    Param("price_per_gpu_hour", "money / GPU-hour", "config, catalog, then bundled sheet", "price override"),
    Param("region", "name", "highest-priced region", "region to pick from the catalog's prices"),
    Param(
        "train_samples", "samples", "required for sft, dpo", "SFT samples, DPO preference pairs (per epoch)"
    ),
    Param(
        "avg_tokens_per_sample", "tokens", "required for sft, dpo", "tokens per sample (DPO: per response)"
    ),
    Param("epochs", "passes", "1", "passes over the training data"),
    Param(
        "batch_size",
        "samples / step",
        "none",
        "SFT/DPO samples (packed sequences) per step: utilisation check",
    ),
    Param(
        "max_seq_len",
        "tokens",
        "avg_tokens_per_sample",
        "packed sequence length (SFT/DPO attention context); with packing false, the cut",
    ),
    Param(
        "packing",
        "true / false",
        "true",
        "false pads each batch to its longest sample: FLOPs on the padded length, not the mean",
    ),
    Param(
        "micro_batch_size",
        "samples",
        "batch_size / gpus",
        "samples padded together on one GPU (per_device_train_batch_size), packing false",
    ),
    Param("steps", "optimizer steps", "required for rl, opd", "policy / student optimizer steps"),
    Param("rollout_prompts", "prompts / step", "required for rl, opd", "prompts per optimizer step"),
    Param("group_size", "samples / prompt", "1", "samples generated per prompt"),
    Param("prompt_tokens", "tokens", "0 (reported)", "prompt tokens per sample"),
    Param("response_tokens", "tokens", "required for rl, opd", "mean generated tokens per sample"),
    Param("max_response_tokens", "tokens", "none (no straggler bound)", "generation cap: the longest sample"),
    Param("steps_per_rollout", "steps", "1", "optimizer steps fed by one rollout batch"),
    Param(
        "decode_tokens_per_s_per_sequence",
        "tokens / s",
        "derived from HBM bandwidth and model_params_b",
        "one sequence's decode speed (the straggler bound)",
    ),
    Param("decode_tokens_per_s_per_gpu", "tokens / s / GPU", "peak x decode MFU / 2·N", "decode throughput"),
    Param("ppo_epochs", "passes", "1", "update passes over each rollout batch"),
    Param("num_layers", "layers", "none (attention ignored)", "transformer layers, for attention FLOPs"),
    Param("hidden_size", "width", "none (attention ignored)", "model width d, for attention FLOPs"),
    Param(
        "activation_recompute", "true / false", "false", "recompute activations: training 8·N·T, not 6·N·T"
    ),
    Param("lora_rank", "rank", "none (full fine-tune)", "LoRA: training ~4·N·T (no weight gradients)"),
    Param("eval_samples", "samples", "none (no eval)", "evaluation samples generated"),
    Param(
        "eval_tokens_per_sample", "tokens", "required with eval_samples", "tokens generated per eval sample"
    ),
    Param("eval_prompt_tokens", "tokens", "0 (reported)", "prompt tokens per eval sample"),
    Param(
        "mfu",
        "fractions",
        "calibrated, else train .40, prefill .50, decode .10",
        '{"train", "prefill", "decode"} overrides',
    ),
    Param(
        "overhead_factor", "x", "1.0", "evaluations, checkpoints, restarts, queueing inside the reservation"
    ),
    Param(
        "judge_calls_per_rollout",
        "calls / sample",
        "none (no judge)",
        "LLM API judge calls per generated sample (steps x rollout_prompts x group_size samples)",
    ),
    Param("judge_input_tokens", "tokens / call", "required with a judge", "input tokens per judge call"),
    Param("judge_output_tokens", "tokens / call", "required with a judge", "output tokens per judge call"),
    Param("judge_model", "name", "required with a judge", "judge's API model, priced per million tokens"),
    Param("synthetic_samples", "samples", "none", "synthetic samples generated on an LLM API (data phase)"),
    Param(
        "synthetic_input_tokens_per_sample",
        "tokens / sample",
        "required with synthetic_samples",
        "input tokens per synthetic sample",
    ),
    Param(
        "synthetic_output_tokens_per_sample",
        "tokens / sample",
        "required with synthetic_samples",
        "output tokens per synthetic sample",
    ),
    Param(
        "synthetic_model",
        "name",
        "required with synthetic_samples",
        "synthetic data's API model, priced per million tokens",
    ),
    Param("data_cost", "money", "none", "data phase cost, given directly"),
    Param(
        "storage_cost", "money or {phase: money}", "none", "storage cost, given directly (a number: train)"
    ),
    Param(
        "stages", "list", "none", 'multi-stage plan: [{"method", "params"}], estimated one by one and summed'
    ),
)
KNOWN = {p.name: p for p in PARAMS}
HARDWARE = ("gpu_type", "instance_type", "price_per_gpu_hour", "region")  # shared by every stage


def closest(name: str) -> str | None:
    match = difflib.get_close_matches(name, KNOWN, n=1, cutoff=0.6)
    return match[0] if match else None


def unknown_keys(raw: dict[str, Any]) -> list[str]:
    """One message per key the estimator does not read, naming the closest known key."""
    out = []
    for key in raw:
        if key in KNOWN:
            continue
        near = closest(str(key))
        hint = (
            f"did you mean {near}?" if near else "not an estimator param (see `trainledger estimate --help`)"
        )
        out.append(f"params.{key}: unknown, ignored; {hint}")
    return out


class Params:
    """Typed access to ``params``; a bad value is an InputError naming ``where`` and the key."""

    def __init__(self, raw: dict[str, Any], where: str) -> None:
        if not isinstance(raw, dict):
            raise InputError(f"{where}: params: expected an object, got {type(raw).__name__}")
        self.raw = raw
        self.where = where

    def number(self, name: str, *, positive: bool = False) -> Decimal | None:
        value = self.raw.get(name)
        if value is None:
            return None
        try:
            number = to_decimal(value)
        except ValueError:
            raise InputError(f"{self.where}: params.{name}: expected a number, got {value!r}") from None
        if number < 0 or (positive and number == 0):
            bound = "> 0" if positive else ">= 0"
            raise InputError(f"{self.where}: params.{name}: expected a number {bound}, got {value!r}")
        return number

    def whole(self, name: str) -> int | None:
        value = self.number(name, positive=True)
        if value is None:
            return None
        if value != value.to_integral_value():
            raise InputError(f"{self.where}: params.{name}: expected a whole number, got {self.raw[name]!r}")
        return int(value)

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.raw.get(name, default)
        if not isinstance(value, bool):
            raise InputError(f"{self.where}: params.{name}: expected true or false, got {value!r}")
        return value

    def text(self, name: str) -> str | None:
        value = self.raw.get(name)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{self.where}: params.{name}: expected a non-empty string, got {value!r}")
        return value.strip()

    def fraction(self, value: Any, name: str) -> Decimal:
        try:
            number = to_decimal(value)
        except ValueError:
            raise InputError(f"{self.where}: params.{name}: expected a number, got {value!r}") from None
        if not 0 < number <= 1:
            raise InputError(f"{self.where}: params.{name}: expected a fraction in (0, 1], got {value!r}")
        return number

    def check(self) -> None:
        """Every bad value is an error, even one the method does not use."""
        for p in PARAMS:
            if p.unit in ("name",):
                self.text(p.name)
            elif p.name in ("activation_recompute", "packing"):
                self.flag(p.name)
            elif p.name in ("gpus", "num_layers", "hidden_size", "lora_rank", "micro_batch_size"):
                self.whole(p.name)
            elif p.unit not in ("fractions", "list", "money or {phase: money}"):
                self.number(p.name, positive=p.name in POSITIVE)


# Multipliers and divisors: zero would silently erase or divide by nothing.
POSITIVE = {"epochs", "group_size", "ppo_epochs", "steps_per_rollout", "overhead_factor"} | {
    "decode_tokens_per_s_per_gpu",
    "decode_tokens_per_s_per_sequence",
}
