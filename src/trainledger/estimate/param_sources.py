"""Where the estimator's params come from: an experiment in the warehouse, or a JSON file."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainledger.config import Config
from trainledger.errors import InputError, NotFound
from trainledger.estimate.catalog import Catalog
from trainledger.estimate.model import Estimate, estimate
from trainledger.labels import canonical_value
from trainledger.warehouse import Connection

METHODS = ("sft", "rl", "opd")


def for_experiment(con: Connection, config: Config, experiment_id: str) -> Estimate:
    """Estimate a logged experiment from its params (as loaded by the last ingest/attribute/nightly)."""
    row = con.execute(
        "SELECT method, params FROM experiments WHERE experiment_id = $id",
        {"id": canonical_value(experiment_id)},
    ).fetchone()
    if row is None:
        raise NotFound(
            f"experiment {experiment_id!r} is not in the warehouse; run `trainledger ingest` to load the "
            "experiment log, or estimate from a file with --params FILE"
        )
    method, params_json = row
    params = json.loads(params_json or "{}")
    return estimate(
        method, params, config.estimator, Catalog.from_warehouse(con), f"experiment {experiment_id}"
    )


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
    chosen = method or data.get("method")
    if chosen is not None and canonical_value(str(chosen)) not in METHODS:
        raise InputError(f"{path}: method {chosen!r} is not one of {', '.join(METHODS)}")
    if chosen is None:
        raise InputError(f'{path}: no method: add "method": "sft" | "rl" | "opd" or pass --method')
    return canonical_value(str(chosen)), {k: v for k, v in params.items() if k != "method"}


def from_file(path: Path, method: str | None, config: Config, con: Connection | None) -> Estimate:
    chosen, params = read_params_file(path, method)
    catalog = Catalog.from_warehouse(con) if con is not None else None
    return estimate(chosen, params, config.estimator, catalog, str(path))
