"""Where the estimator's params come from: an experiment in the warehouse, or a JSON file."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainledger.core.config import Config
from trainledger.core.errors import InputError, NotFound
from trainledger.core.labels import canonical_value
from trainledger.core.vocabulary import METHODS
from trainledger.estimate import calibration
from trainledger.estimate.gpu_list_prices import GpuListPrices
from trainledger.estimate.model import estimate
from trainledger.estimate.result import Estimate
from trainledger.warehouse.connection import Connection, run

NEEDS = {
    "sft": "model_params_b, train_samples, avg_tokens_per_sample",
    "dpo": "model_params_b, train_samples (pairs), avg_tokens_per_sample",
    "rl": "model_params_b, steps, rollout_prompts, response_tokens, reward_params_b, reference_params_b",
    "opd": "model_params_b, teacher_params_b, steps, rollout_prompts, response_tokens",
}


def for_experiment(
    con: Connection, config: Config, experiment_id: str, *, strict: bool = False, calibrate: bool = True
) -> Estimate:
    """Estimate a logged experiment from its params (as loaded by the last ingest/attribute/nightly)."""
    row = run(con, "estimate/experiment_params", {"id": canonical_value(experiment_id)}).fetchone()
    if row is None:
        raise NotFound(
            f"experiment {experiment_id!r} is not in the warehouse; run `trainledger ingest` to load the "
            "experiment log, or estimate from a file with --params FILE"
        )
    method, params_json = row
    params = json.loads(params_json or "{}", parse_float=Decimal)
    where = f"experiment {experiment_id}"
    lookup = calibration.from_warehouse(con) if calibrate else None
    result = estimate(
        method, params, config.estimator, GpuListPrices.from_warehouse(con), where, lookup, strict
    )
    return usable(result, method, where)


def read_params_file(path: Path, method: str | None) -> tuple[str | None, dict[str, Any]]:
    """A params object, or a log record with ``method`` and ``params``; ``method`` overrides the file's."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        detail = (
            f" ({exc.msg} at line {exc.lineno} column {exc.colno})"
            if isinstance(exc, json.JSONDecodeError)
            else ""
        )
        raise InputError(f"{path}: not valid JSON{detail}; expected a params object") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object (params, or a record with method and params)")
    nested = data.get("params")
    params: dict[str, Any] = nested if isinstance(nested, dict) else data
    return checked_method(method or data.get("method"), params, str(path)), {
        k: v for k, v in params.items() if k != "method"
    }


def checked_method(chosen: Any, params: dict[str, Any], where: str) -> str | None:
    """The method to estimate ``params`` as, canonical; None for a staged plan (``stages``)."""
    if chosen is not None and canonical_value(str(chosen)) not in METHODS:
        raise InputError(f"{where}: method {chosen!r} is not one of {', '.join(METHODS)}")
    if chosen is None and "stages" not in params:
        raise InputError(f'{where}: no method: add "method": "sft" | "rl" | "opd" | "dpo" or pass --method')
    return None if chosen is None else canonical_value(str(chosen))


def from_file(
    path: Path,
    method: str | None,
    config: Config,
    con: Connection | None,
    *,
    strict: bool = False,
    calibrate: bool = True,
) -> Estimate:
    chosen, params = read_params_file(path, method)
    return from_params(chosen, params, config, con, str(path), strict=strict, calibrate=calibrate)


def from_params(
    method: str | None,
    params: dict[str, Any],
    config: Config,
    con: Connection | None,
    where: str,
    *,
    strict: bool = False,
    calibrate: bool = True,
) -> Estimate:
    """Estimate ``params`` as ``method`` (a file's, or the Python API's); ``where`` names them in errors."""
    catalog = GpuListPrices.from_warehouse(con) if con is not None else None
    lookup = calibration.from_warehouse(con) if (con is not None and calibrate) else None
    result = estimate(method, params, config.estimator, catalog, where, lookup, strict)
    return usable(result, method, where)


def usable(result: Estimate, method: str | None, where: str) -> Estimate:
    """An estimate with nothing in it is an error that says what the method needs."""
    if result.components:
        return result
    needs = NEEDS.get(method or "", "")
    raise InputError(
        f"{where}: nothing to estimate: method {method or '-'} needs {needs}"
        + (" (and gpu_type or instance_type for GPU hours)" if needs else "")
        + "; see `trainledger estimate --help` for every param"
    )
