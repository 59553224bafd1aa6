"""From an experiment's ``params`` to FLOPs, GPU hours and money (SPEC §6), saying what it assumed.

A missing input is reported in ``missing`` and the part that needs it is left out; neutral multipliers
(epochs, ppo_epochs, group_size) default to 1 and say so; an unknown key is a warning naming the closest
known one (an error when ``strict``). A ``stages`` list is estimated stage by stage, each with the top-level
params beneath its own, and summed; hardware is shared, eval, synthetic data and given money are counted
once, judge calls per RL / OPD stage.
"""

from __future__ import annotations

from typing import Any

from trainledger.core.config_estimator import EstimatorConfig
from trainledger.core.errors import InputError
from trainledger.core.vocabulary import METHODS
from trainledger.estimate import methods
from trainledger.estimate.api_spend import api_spend, synthetic
from trainledger.estimate.builder import Builder
from trainledger.estimate.calibration import Lookup
from trainledger.estimate.gpu_list_prices import GpuListPrices
from trainledger.estimate.hardware import check_stage_hardware, hardware
from trainledger.estimate.params import Params, unknown_keys
from trainledger.estimate.result import Estimate

ROUNDING = "GPU hours x price, summed per phase, rounded half-even to the cent; total = sum of phases"
ONCE = (
    "eval_samples",
    "eval_tokens_per_sample",
    "eval_prompt_tokens",
    "data_cost",
    "storage_cost",
    "synthetic_samples",
    "synthetic_input_tokens_per_sample",
    "synthetic_output_tokens_per_sample",
    "synthetic_model",
)
HARDWARE_NOTES = ("gpu_type", "gpus", "peak_tflops", "price_per_gpu_hour")


def estimate(
    method: str | None,
    params: dict[str, Any],
    config: EstimatorConfig | None = None,
    catalog: GpuListPrices | None = None,
    where: str = "params",
    calibration: Lookup | None = None,
    strict: bool = False,
) -> Estimate:
    """Estimate one experiment; never raises for what is missing (see ``Estimate.missing``)."""
    checked = Params(params, where)
    unknown = unknown_keys(params)
    if strict and unknown:
        raise InputError(f"{where}: " + "; ".join(unknown) + " (--strict)")
    checked.check()
    config = config or EstimatorConfig()
    if "stages" in params:
        return _staged(method, checked, config, catalog, calibration, strict, unknown)
    b = Builder(method, checked, config, catalog)
    b.est.warnings.extend(unknown)
    hardware(b)
    _calibrate(b, method, calibration)
    _work(b, method)
    methods.evaluation(b)
    api_spend(b, method)
    methods.money(b)
    methods.overhead(b)
    return _finish(b)


def _calibrate(b: Builder, method: str | None, calibration: Lookup | None) -> None:
    if calibration is not None and method is not None and b.est.gpu is not None:
        b.calibration = calibration(method, b.est.gpu)


def _work(b: Builder, method: str | None) -> None:
    if method == "sft":
        methods.sft(b)
    elif method == "dpo":
        methods.dpo(b)
    elif method in ("rl", "opd"):
        methods.rollouts(b, method)
    else:
        b.missing(
            f"method {method!r} is not one of {', '.join(METHODS)}: only eval, data and storage are estimated"
        )


def _finish(b: Builder) -> Estimate:
    b.note("rounding", "cents, half-even", ROUNDING)
    if not b.est.components:
        b.missing("nothing to estimate from these params")
    return b.est


def _staged(
    method: str | None,
    top: Params,
    config: EstimatorConfig,
    catalog: GpuListPrices | None,
    calibration: Lookup | None,
    strict: bool,
    unknown: list[str],
) -> Estimate:
    stages = top.raw["stages"]
    if not isinstance(stages, list) or not stages:
        raise InputError(f'{top.where}: params.stages: expected a list of {{"method", "params"}} objects')
    shared = {k: v for k, v in top.raw.items() if k != "stages" and k not in ONCE}
    b = Builder(method or "stages", top, config, catalog)
    b.est.warnings.extend(unknown)
    hardware(b)
    for number, stage in enumerate(stages, 1):
        where = f"{top.where}: stages[{number}]"
        if not isinstance(stage, dict) or not isinstance(stage.get("params", {}), dict):
            raise InputError(f'{where}: expected {{"method": ..., "params": {{...}}}}')
        stage_method = str(stage.get("method") or "").strip().lower()
        if stage_method not in METHODS:
            raise InputError(f"{where}: method {stage.get('method')!r} is not one of {', '.join(METHODS)}")
        own = stage.get("params", {})
        check_stage_hardware(own, where)
        if "stages" in own:
            raise InputError(f"{where}: stages cannot nest")
        label = f"stage {number} ({stage_method})"
        b.est.warnings.extend(f"{label}: {w}" for w in unknown_keys(own))
        part = estimate(stage_method, {**shared, **own}, config, catalog, where, calibration, strict)
        _merge(b.est, part, label)
    methods.evaluation(b)
    synthetic(b)
    methods.money(b)
    return _finish(b)


def _merge(into: Estimate, part: Estimate, label: str) -> None:
    for c in part.components:
        c.work = f"{label}: {c.work}"
        into.components.append(c)
    for key, assumption in part.assumptions.items():
        if key in HARDWARE_NOTES and into.assumptions.get(key) == assumption:
            continue
        into.assumptions[f"{label}: {key}"] = assumption
    into.missing.extend(f"{label}: {m}" for m in part.missing if m not in into.missing)
    into.warnings.extend(f"{label}: {w}" for w in part.warnings if not w.startswith("params."))
