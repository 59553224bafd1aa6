"""Record a run from inside a training job: a start record, phase changes and an end record (SPEC §5).

    from trainledger import runlog

    runlog.start("exp-0412", project="qwen-coder", method="sft", phase="train",
                 params={"model_params_b": 7, "gpus": 8}, log="s3://ml-logs/trainledger/")
    runlog.phase("eval")
    runlog.end("succeeded", metrics={"target": {"before": 0.41, "after": 0.55}})

or ``with runlog.start(...):`` (the end record says ``failed`` when the block raises). Every record carries
the run's whole state so far, since later records update earlier ones field by field: the last record to
arrive is enough. A folder or an ``s3://`` / ``gs://`` prefix gets one object per record, named
``<UTC time>-<experiment>-<random>.json`` so that name order is time order and concurrent jobs never
overwrite each other; any other path is a JSON Lines file that gets one line appended per record.

Recording never breaks or stalls the job: the metadata probes share one short deadline, a write is
abandoned after its timeout, and every failure is a ``RunlogWarning`` (``warnings`` module), never an
exception. The module imports only the standard library; cloud SDKs load only for a bucket log.

Where the job runs is detected, unless given (argument > environment > detection):

- resource: ``resource_id=`` / ``provider=``, ``TRAINLEDGER_RESOURCE_ID`` / ``TRAINLEDGER_PROVIDER``; else
  the EC2 instance id from the instance metadata service (IMDSv2 token flow), else the GCE instance name
  (and numeric id) from the metadata server.
- GPUs: ``gpus=``, ``TRAINLEDGER_GPUS``; else the devices in ``CUDA_VISIBLE_DEVICES``, else the lines of
  ``nvidia-smi -L``.
- ``TRAINLEDGER_IMDS_ENDPOINT`` (default ``AWS_EC2_METADATA_SERVICE_ENDPOINT``, else
  ``http://169.254.169.254``); ``AWS_EC2_METADATA_DISABLED=true`` skips the EC2 probe.
- ``TRAINLEDGER_GCE_METADATA_ENDPOINT`` (default ``http://$GCE_METADATA_HOST``, else
  ``http://169.254.169.254``).
- ``TRAINLEDGER_DETECT``: which probes run, a comma list of ``aws``, ``gcp``, ``gpus`` (default all), or
  ``none``.
- ``TRAINLEDGER_METADATA_TIMEOUT_S`` (default 1): the deadline shared by all probes;
  ``TRAINLEDGER_WRITE_TIMEOUT_S`` (default 10): per record written.
- ``TRAINLEDGER_LOG``: where to write when ``log=`` is not given; else ``[experiments] uri`` of the config
  (``$TRAINLEDGER_CONFIG`` or ``./trainledger.toml``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from trainledger.runlog.placement import (
    DEFAULT_METADATA_TIMEOUT_S,
    LINK_LOCAL_METADATA,
    PROBES,
    Placement,
    detect,
    ec2_instance_id,
    env_float,
    gce_instance,
    gpu_count,
)
from trainledger.runlog.records import (
    DEFAULT_WRITE_TIMEOUT_S,
    STATUS_ALIASES,
    STATUSES,
    configured_log,
    safe_iso,
    write_record,
)
from trainledger.runlog.training_run import TrainingRun
from trainledger.runlog.warning import RunlogWarning, warn

__all__ = [
    "DEFAULT_METADATA_TIMEOUT_S",
    "DEFAULT_WRITE_TIMEOUT_S",
    "LINK_LOCAL_METADATA",
    "PROBES",
    "STATUSES",
    "STATUS_ALIASES",
    "Placement",
    "RunlogWarning",
    "TrainingRun",
    "current",
    "detect",
    "ec2_instance_id",
    "end",
    "gce_instance",
    "gpu_count",
    "phase",
    "start",
    "write_record",
]

_current: TrainingRun | None = None


def start(
    experiment_id: str,
    project: str | None = None,
    method: str | None = None,
    *,
    phase: str | None = None,
    params: dict[str, Any] | None = None,
    estimate: dict[str, Any] | None = None,
    log: str | None = None,
    resource_id: str | None = None,
    provider: str | None = None,
    gpus: int | None = None,
    resources: list[dict[str, Any]] | None = None,
    timeout_s: float | None = None,
    write_timeout_s: float | None = None,
    at: datetime | str | None = None,
) -> TrainingRun:
    """Record the start of ``experiment_id`` and make it the current run of this process.

    ``resources`` lists every machine of a multi-node job (``[{"provider": "aws", "resource_id": "i-…",
    "gpus": 8}, …]``, or an LLM API workspace / project with a ``weight`` for its share, e.g. judged tokens:
    ``{"provider": "anthropic", "resource_id": "wrkspc_…", "weight": 120000}``; log from one rank, since
    the latest record's ``phases`` replaces earlier ones);
    without it this machine is detected."""
    global _current
    when = safe_iso(at)
    if resources is None:
        placement = detect(timeout_s, resource_id=resource_id, provider=provider, gpus=gpus)
        here = placement.resource()
        resources = [here] if here else []
        if not here:
            warn(
                f"trainledger: could not tell which machine {experiment_id} runs on (no EC2 or GCE metadata); "
                "pass resource_id= or set TRAINLEDGER_RESOURCE_ID so its cost can be placed by time"
            )
    record: dict[str, Any] = {"experiment_id": experiment_id}
    if project:
        record["project"] = project
    if method:
        record["method"] = method
    record.update(status="running", started_at=when)
    if params:
        record["params"] = dict(params)
    if estimate:
        record["estimate"] = dict(estimate)
    destination = log
    if destination is None:
        try:
            destination = configured_log()
        except Exception as exc:  # a broken config must not stop the job
            warn(f"trainledger: cannot read the config for the experiment log: {exc}")
    run = TrainingRun(
        record=record,
        log=destination,
        resources=resources,
        write_timeout_s=write_timeout_s
        if write_timeout_s is not None
        else env_float("TRAINLEDGER_WRITE_TIMEOUT_S", DEFAULT_WRITE_TIMEOUT_S),
    )
    run._add_phase(phase, when, None)
    run._write("start")
    _current = run
    return run


def current() -> TrainingRun | None:
    return _current


def phase(
    name: str, *, at: datetime | str | None = None, resources: list[dict[str, Any]] | None = None
) -> TrainingRun | None:
    """Move the current run to phase ``name``; a warning (not an error) when no run was started."""
    if _current is None:
        warn("trainledger: runlog.phase() before runlog.start(); nothing recorded")
        return None
    return _current.phase(name, at=at, resources=resources)


def end(
    status: str = "succeeded", *, metrics: dict[str, Any] | None = None, at: datetime | str | None = None
) -> TrainingRun | None:
    """End the current run; a warning (not an error) when no run was started."""
    if _current is None:
        warn("trainledger: runlog.end() before runlog.start(); nothing recorded")
        return None
    return _current.end(status, metrics=metrics, at=at)
