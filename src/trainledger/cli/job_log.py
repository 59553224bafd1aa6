"""`trainledger log start|phase|end`: record a run from a job script, one command per event.

Each command is its own process, so the run's state so far is kept in a small state file between calls
(``--state``, ``$TRAINLEDGER_RUN_STATE``, or one file per experiment in a private folder, see
``runlog/state.py``). A record that cannot be written is a warning and the command still exits 0:
logging never fails the job.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import click

from trainledger import runlog
from trainledger.cli.context import Context
from trainledger.cli.options import examples
from trainledger.core.errors import ConfigError, InputError
from trainledger.runlog import state as run_state

LOG = click.option(
    "--log",
    "log_uri",
    default=None,
    help="Experiment log: JSON Lines file, folder, s3:// or gs:// prefix (default $TRAINLEDGER_LOG, "
    "then [experiments] uri).",
)
STATE = click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="File keeping the run between calls (default $TRAINLEDGER_RUN_STATE, else a private folder in "
    "$XDG_RUNTIME_DIR or the temp folder).",
)
AT = click.option("--at", default=None, help="When it happened, ISO 8601 (default now).")
RESOURCE_ID = click.option(
    "--resource-id", default=None, help="This machine as the bill names it (default: detected)."
)
PROVIDER = click.option("--provider", default=None, help="aws, gcp, ... (default: detected).")
GPUS = click.option("--gpus", type=click.IntRange(min=0), default=None, help="GPUs this job uses.")


def _state_file(experiment_id: str, explicit: str | None) -> Path:
    return run_state.state_file(experiment_id, explicit)


def _destination(obj: Context, log_uri: str | None) -> str:
    if log_uri:
        return log_uri
    if os.environ.get("TRAINLEDGER_LOG"):
        return os.environ["TRAINLEDGER_LOG"]
    settings = obj.config_or_defaults.experiments
    if settings.kind == "jsonl" and settings.uri:
        return obj.config_or_defaults.resolve(settings.uri)
    raise ConfigError(
        "no experiment log to write to: give --log, set TRAINLEDGER_LOG, or set [experiments] uri "
        "in trainledger.toml"
    )


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pairs(values: tuple[str, ...], option: str) -> list[tuple[str, Any]]:
    pairs = []
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint=option)
        pairs.append((key.strip(), _json_value(value.strip())))
    return pairs


def _json_file(path: str | None, what: str) -> dict[str, Any]:
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read {what} as a JSON object: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object of {what}")
    return data


def _load(obj: Context, experiment_id: str, state: Path, log_uri: str | None) -> runlog.TrainingRun:
    """The run started by `log start` on this machine, or a fresh one (with a warning) when there is none."""
    kept = run_state.load(state)
    if kept is not None:
        try:
            run = runlog.TrainingRun.from_state(kept)
            if run.experiment_id == experiment_id:
                if log_uri:
                    run.log = log_uri
                return run
        except (ValueError, KeyError, TypeError):
            pass
    obj.reporter.warn(
        f"no run state for {experiment_id} at {state} (was `trainledger log start` run on this machine?); "
        "this record carries only what this command knows"
    )
    placement = runlog.detect()
    here = placement.resource()
    return runlog.TrainingRun(
        record={"experiment_id": experiment_id},
        log=_destination(obj, log_uri),
        resources=[here] if here else [],
    )


def _save(run: runlog.TrainingRun, state: Path) -> None:
    run_state.save(state, run.to_state())


def _report(
    obj: Context, caught: list[warnings.WarningMessage], run: runlog.TrainingRun | None, what: str
) -> None:
    for item in caught:
        obj.reporter.warn(str(item.message).removeprefix("trainledger: "))
    if run is not None and run.written:
        obj.reporter.step(f"recorded the {what} of {run.experiment_id} at {run.written[-1]}")


@click.group(
    name="log",
    epilog=examples(
        "trainledger log start exp-0412 --project qwen-coder --method sft --phase train --gpus 8",
        "trainledger log phase exp-0412 eval",
        "trainledger log end exp-0412 --status succeeded",
    ),
)
def log_group() -> None:
    """Record a run from inside a training job (start, phase changes, end)."""


@log_group.command(
    name="start",
    epilog=examples(
        "trainledger log start exp-0412 --project qwen-coder --method sft --phase train --gpus 8",
        "trainledger log start exp-0412 --method rl --param model_params_b=7 --log s3://ml-logs/trainledger/",
    ),
)
@click.argument("experiment_id")
@click.option("--project", default=None, help="Project, as in the cost labels.")
@click.option("--method", default=None, help="sft, rl, opd, ...")
@click.option("--phase", "phase_name", default=None, help="First phase: data, train, rollout, eval.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="Estimator input (repeatable).")
@click.option("--params-file", type=click.Path(dir_okay=False), default=None, help="JSON object of params.")
@click.option("--estimate-file", type=click.Path(dir_okay=False), default=None, help="JSON estimate object.")
@RESOURCE_ID
@PROVIDER
@GPUS
@click.option(
    "--timeout",
    "timeout_s",
    type=float,
    default=None,
    help="Deadline for metadata probes, seconds (default 1).",
)
@AT
@LOG
@STATE
@click.pass_obj
def start_command(
    obj: Context,
    experiment_id: str,
    project: str | None,
    method: str | None,
    phase_name: str | None,
    params: tuple[str, ...],
    params_file: str | None,
    estimate_file: str | None,
    resource_id: str | None,
    provider: str | None,
    gpus: int | None,
    timeout_s: float | None,
    at: str | None,
    log_uri: str | None,
    state_path: str | None,
) -> None:
    """Record the start of EXPERIMENT_ID on this machine."""
    all_params = {**_json_file(params_file, "params"), **dict(_pairs(params, "--param"))}
    estimate = _json_file(estimate_file, "estimate")
    destination = _destination(obj, log_uri)
    state = _state_file(experiment_id, state_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = runlog.start(
            experiment_id,
            project,
            method,
            phase=phase_name,
            params=all_params or None,
            estimate=estimate or None,
            log=destination,
            resource_id=resource_id,
            provider=provider,
            gpus=gpus,
            timeout_s=timeout_s,
            at=at,
        )
        _save(run, state)
    _report(obj, caught, run, "start")


@log_group.command(
    name="phase",
    epilog=examples(
        "trainledger log phase exp-0412 eval", "trainledger log phase exp-0412 rollout --gpus 16"
    ),
)
@click.argument("experiment_id")
@click.argument("phase_name", metavar="PHASE")
@RESOURCE_ID
@PROVIDER
@GPUS
@AT
@LOG
@STATE
@click.pass_obj
def phase_command(
    obj: Context,
    experiment_id: str,
    phase_name: str,
    resource_id: str | None,
    provider: str | None,
    gpus: int | None,
    at: str | None,
    log_uri: str | None,
    state_path: str | None,
) -> None:
    """Record that EXPERIMENT_ID moved on to PHASE."""
    state = _state_file(experiment_id, state_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = _load(obj, experiment_id, state, log_uri)
        resources = None
        if resource_id or provider or gpus is not None:
            here = runlog.detect(resource_id=resource_id, provider=provider, gpus=gpus).resource()
            resources = [here] if here else []
        run.phase(phase_name, at=at, resources=resources)
        _save(run, state)
    _report(obj, caught, run, f"phase {phase_name}")


@log_group.command(
    name="end",
    epilog=examples(
        "trainledger log end exp-0412 --status succeeded",
        "trainledger log end exp-0412 --status failed --metrics-file metrics.json",
    ),
)
@click.argument("experiment_id")
@click.option(
    "--status",
    type=click.Choice(list(runlog.STATUSES[1:])),
    default="succeeded",
    show_default=True,
    help="How the run ended.",
)
@click.option(
    "--metric",
    "metric_values",
    multiple=True,
    metavar="NAME.before|after=VALUE",
    help="A metric, e.g. target.after=0.55 (repeatable).",
)
@click.option("--metrics-file", type=click.Path(dir_okay=False), default=None, help="JSON object of metrics.")
@AT
@LOG
@STATE
@click.pass_obj
def end_command(
    obj: Context,
    experiment_id: str,
    status: str,
    metric_values: tuple[str, ...],
    metrics_file: str | None,
    at: str | None,
    log_uri: str | None,
    state_path: str | None,
) -> None:
    """Record the end of EXPERIMENT_ID with its status and metrics."""
    metrics: dict[str, Any] = _json_file(metrics_file, "metrics")
    for key, value in _pairs(metric_values, "--metric"):
        name, _, when = key.rpartition(".")
        if not name or when not in ("before", "after"):
            raise click.BadParameter(
                f"expected NAME.before=V or NAME.after=V, got {key!r}", param_hint="--metric"
            )
        metrics.setdefault(name, {})[when] = value
    state = _state_file(experiment_id, state_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = _load(obj, experiment_id, state, log_uri)
        run.end(status, metrics=metrics or None, at=at)
        run_state.remove(state)
    _report(obj, caught, run, "end")
