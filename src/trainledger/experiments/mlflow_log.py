"""The experiment log read from MLflow runs (``[experiments] kind = "mlflow"``), as SPEC §5 records.

Teams that already track runs in MLflow tag them instead of writing JSON Lines. One MLflow run is one
phase window of an experiment; runs with the same experiment id (or children of one parent run) form
one experiment. What is read (README "MLflow runs" has the full table):

- tags ``experiment_id`` (else the parent run's, else the run id), ``project``, ``method``, ``phase``;
- resources: tag ``trainledger.resources`` (JSON list of ``{"provider", "resource_id", "gpus"}``), or tags
  ``resource_id`` (comma-separated), ``provider`` and ``gpus``;
- tag ``trainledger.estimate``: the SPEC estimate object (JSON), optional;
- params: the estimator's inputs, each parsed as JSON when it parses (``8`` → 8, ``{"train": 0.4}``);
- metrics ``<name>_before`` / ``<name>_after`` (or ``.before``, ``/before``) → ``metrics.<name>.before|after``,
  their latest values; other metrics are training curves and are not read;
- run start/end times and status (FINISHED → succeeded, FAILED → failed, KILLED → aborted, else running).

mlflow (the ``mlflow`` extra) is imported only here, inside functions.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from trainledger.core import json_lines
from trainledger.core.config import Config
from trainledger.core.errors import ConfigError, InputError, SourceError
from trainledger.core.reporter import Reporter
from trainledger.core.timestamps import iso_utc

STATUS = {
    "FINISHED": "succeeded",
    "FAILED": "failed",
    "KILLED": "aborted",
    "RUNNING": "running",
    "SCHEDULED": "running",
}
WORST_FIRST = ("running", "failed", "aborted", "succeeded")
METRIC = re.compile(r"^(?P<name>.+?)[_./](?P<when>before|after)$")
PAGE = 1000


def safe_uri(uri: str) -> str:
    """The tracking URI without user:password, for messages."""
    parts = urlsplit(uri)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = host + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return uri


def tracking_uri(config: Config) -> str:
    """``[experiments] tracking_uri`` (else MLFLOW_TRACKING_URI); a relative sqlite path is next to the config."""
    uri = config.experiments.tracking_uri or os.environ.get("MLFLOW_TRACKING_URI")
    if not uri:
        raise ConfigError('[experiments] kind = "mlflow" needs tracking_uri (or MLFLOW_TRACKING_URI)')
    if uri.startswith("sqlite:///") and not uri.startswith("sqlite:////"):
        path = Path(config.resolve(uri.removeprefix("sqlite:///")))
        uri = f"sqlite:///{path}"
    if uri.startswith("sqlite:///"):
        path = Path(uri.removeprefix("sqlite:///"))
        if not path.is_file():
            raise SourceError(f"MLflow store {path} does not exist (tracking_uri {uri})")
    return uri


def _client(uri: str) -> Any:
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise ConfigError(
            '[experiments] kind = "mlflow" needs the mlflow client: pip install "trainledger[mlflow]"'
        ) from None
    return MlflowClient(tracking_uri=uri)


def _runs(client: Any, name: str | None) -> list[Any]:
    from mlflow.entities import ViewType

    if name:
        experiment = client.get_experiment_by_name(name)
        if experiment is None and name.isdigit():
            experiment = client.get_experiment(name)
        if experiment is None:
            raise SourceError(f"no MLflow experiment named {name!r}")
        ids = [experiment.experiment_id]
    else:
        ids = [e.experiment_id for e in client.search_experiments(view_type=ViewType.ACTIVE_ONLY)]
    runs: list[Any] = []
    token = None
    while ids:
        page = client.search_runs(
            ids,
            run_view_type=ViewType.ACTIVE_ONLY,
            max_results=PAGE,
            order_by=["attributes.start_time ASC", "attributes.run_id ASC"],
            page_token=token,
        )
        runs.extend(page)
        token = page.token
        if not token:
            break
    return runs


@contextmanager
def _bounded(timeout_s: float, retries: int) -> Iterator[None]:
    """MLflow's HTTP client reads its timeout and retries from the environment at each request; its
    defaults (120 s, 7 retries with backoff 2) let a dead server hold a night for minutes. Ours are set for
    the read and put back after it."""
    wanted = {
        "MLFLOW_HTTP_REQUEST_TIMEOUT": str(max(1, math.ceil(timeout_s))),
        "MLFLOW_HTTP_REQUEST_MAX_RETRIES": str(retries),
        "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
        "MLFLOW_HTTP_REQUEST_BACKOFF_JITTER": "0.5",
    }
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def records(config: Config, reporter: Reporter) -> list[tuple[str, dict[str, Any]]]:
    """One SPEC §5 record per experiment found in the MLflow runs, with its location ("mlflow run ID")."""
    uri = tracking_uri(config)
    client = _client(uri)
    from mlflow.exceptions import MlflowException

    settings = config.experiments
    try:
        with _bounded(settings.timeout_s, settings.retries):
            runs = _runs(client, settings.experiment_name)
    except MlflowException as exc:
        first = str(exc.message).splitlines()[0] if str(exc.message) else type(exc).__name__
        raise SourceError(f"MLflow {safe_uri(uri)}: {first.replace(uri, safe_uri(uri))}") from None
    groups: dict[str, list[Any]] = {}
    by_run = {run.info.run_id: run for run in runs}
    for run in runs:
        groups.setdefault(_experiment_id(run, by_run), []).append(run)
    for members in groups.values():  # a stable order: start time, then phase name
        members.sort(key=lambda r: (r.info.start_time or 0, r.data.tags.get("phase", ""), r.info.run_id))
    out = [(f"mlflow run {members[0].info.run_id}", combine(key, members)) for key, members in groups.items()]
    reporter.step(f"MLflow {safe_uri(uri)}: {len(runs)} run(s), {len(out)} experiment(s)")
    return out


def _experiment_id(run: Any, by_run: dict[str, Any], depth: int = 0) -> str:
    tags = run.data.tags
    explicit = tags.get("experiment_id") or tags.get("trainledger.experiment_id")
    if explicit:
        return str(explicit).strip()
    parent = by_run.get(tags.get("mlflow.parentRunId", ""))
    if parent is not None and depth < 20:
        return _experiment_id(parent, by_run, depth + 1)
    return str(run.info.run_id)


def _iso(millis: int | None) -> str | None:
    return iso_utc(None if millis is None else millis / 1000)


def _json(text: str, where: str, what: str) -> Any:
    value = json_lines.parse(text, f"{where}: tag {what}", f"tag {what} as JSON")
    json_lines.check_numbers(value, f"{where}: tag {what}")
    return value


def _param(text: str) -> Any:
    """A param as the estimator wants it: numbers and JSON objects parsed, anything else kept as text."""
    try:
        value = json_lines.parse(text, "param")
        json_lines.check_numbers(value, "param")
    except InputError:
        return text
    return value


def _resources(run: Any, where: str) -> list[dict[str, Any]]:
    tags = run.data.tags
    if "trainledger.resources" in tags:
        listed = _json(tags["trainledger.resources"], where, "trainledger.resources")
        if not isinstance(listed, list):
            raise InputError(f"{where}: tag trainledger.resources: expected a JSON list of resources")
        return listed
    ids = [r.strip() for r in str(tags.get("resource_id", "")).split(",") if r.strip()]
    resources = []
    for resource_id in ids:
        entry: dict[str, Any] = {"resource_id": resource_id}
        if tags.get("provider"):
            entry["provider"] = tags["provider"]
        if tags.get("gpus"):
            try:
                entry["gpus"] = int(tags["gpus"])
            except ValueError:
                raise InputError(
                    f"{where}: tag gpus: expected a whole number, got {tags['gpus']!r}"
                ) from None
        resources.append(entry)
    return resources


def combine(experiment_id: str, runs: list[Any]) -> dict[str, Any]:
    """The runs of one experiment (in start order) as one record: phases from each run, the rest merged."""
    record: dict[str, Any] = {"experiment_id": experiment_id}
    params: dict[str, Any] = {}
    metrics: dict[str, dict[str, Any]] = {}
    phases = []
    statuses = []
    for run in runs:
        where = f"mlflow run {run.info.run_id}"
        tags = run.data.tags
        for key in ("project", "method"):
            if tags.get(key) and key not in record:
                record[key] = tags[key]
        if "trainledger.estimate" in tags and "estimate" not in record:
            record["estimate"] = _json(tags["trainledger.estimate"], where, "trainledger.estimate")
        params.update({k: _param(v) for k, v in run.data.params.items()})
        for name, value in run.data.metrics.items():
            match = METRIC.match(name)
            if match:
                metrics.setdefault(match["name"], {})[match["when"]] = Decimal(repr(value))
        statuses.append(STATUS.get(str(run.info.status), "running"))
        resources = _resources(run, where)
        if tags.get("phase") or resources:
            phase: dict[str, Any] = {"phase": tags["phase"]} if tags.get("phase") else {}
            phase["started_at"] = _iso(run.info.start_time)
            if run.info.end_time:
                phase["ended_at"] = _iso(run.info.end_time)
            phase["resources"] = resources
            phases.append(phase)
    starts = [r.info.start_time for r in runs if r.info.start_time]
    ends = [r.info.end_time for r in runs if r.info.end_time]
    status = next(s for s in WORST_FIRST if s in statuses)
    record["status"] = status
    if starts:
        record["started_at"] = _iso(min(starts))
    if ends and status != "running":
        record["ended_at"] = _iso(max(ends))
    if phases:
        record["phases"] = phases
    if params:
        record["params"] = params
    if metrics:
        record["metrics"] = metrics
    return record
