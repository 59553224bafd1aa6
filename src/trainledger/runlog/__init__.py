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

import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from email.message import Message
from pathlib import Path
from types import TracebackType
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_METADATA_TIMEOUT_S = 1.0
DEFAULT_WRITE_TIMEOUT_S = 10.0
LINK_LOCAL_METADATA = "http://169.254.169.254"
PROBES = ("aws", "gcp", "gpus")
# As experiments.STATUSES (kept here so that importing the run logger stays free of the warehouse stack).
STATUSES = ("running", "succeeded", "failed", "aborted", "cancelled")
STATUS_ALIASES = {
    "success": "succeeded",
    "successful": "succeeded",
    "completed": "succeeded",
    "finished": "succeeded",
    "done": "succeeded",
    "error": "failed",
    "crashed": "failed",
    "killed": "aborted",
    "canceled": "cancelled",
}


class RunlogWarning(UserWarning):
    """A run could not be (fully) recorded; the job goes on."""


def _warn(message: str) -> None:
    warnings.warn(message, RunlogWarning, stacklevel=3)


# ---------------------------------------------------------------- where the job runs


@dataclass
class Placement:
    """The machine a job runs on, as the bill names it."""

    provider: str | None = None
    resource_id: str | None = None
    gpus: int | None = None
    instance_id: str | None = None  # GCE numeric id, when the resource id is the instance name

    def resource(self) -> dict[str, Any] | None:
        if not self.resource_id:
            return None
        entry: dict[str, Any] = {"provider": self.provider, "resource_id": self.resource_id}
        if self.gpus is not None:
            entry["gpus"] = self.gpus
        if self.instance_id:
            entry["instance_id"] = self.instance_id
        return {k: v for k, v in entry.items() if v is not None}


def _no_proxy_open(request: urllib.request.Request, timeout: float) -> tuple[bytes, Message]:
    """Metadata endpoints are link-local: never route them through an HTTP(S)_PROXY."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=timeout) as response:
        return response.read(), response.headers


def _imds_endpoint() -> str:
    return (
        os.environ.get("TRAINLEDGER_IMDS_ENDPOINT")
        or os.environ.get("AWS_EC2_METADATA_SERVICE_ENDPOINT")
        or LINK_LOCAL_METADATA
    ).rstrip("/")


def _gce_endpoint() -> str:
    host = os.environ.get("GCE_METADATA_HOST")
    return (
        os.environ.get("TRAINLEDGER_GCE_METADATA_ENDPOINT")
        or (f"http://{host}" if host else LINK_LOCAL_METADATA)
    ).rstrip("/")


def ec2_instance_id(timeout_s: float) -> str | None:
    """The EC2 instance id through IMDSv2: a session token by PUT, then the id with that token."""
    if os.environ.get("AWS_EC2_METADATA_DISABLED", "").lower() == "true":
        return None
    base = _imds_endpoint()
    token_request = urllib.request.Request(
        f"{base}/latest/api/token", method="PUT", headers={"X-aws-ec2-metadata-token-ttl-seconds": "60"}
    )
    token, _ = _no_proxy_open(token_request, timeout_s)
    id_request = urllib.request.Request(
        f"{base}/latest/meta-data/instance-id", headers={"X-aws-ec2-metadata-token": token.decode()}
    )
    body, _ = _no_proxy_open(id_request, timeout_s)
    instance_id = body.decode().strip()
    return instance_id if re.fullmatch(r"i-[0-9a-f]{8,17}", instance_id) else None


def gce_instance(timeout_s: float) -> tuple[str, str] | None:
    """(name, numeric id) of the GCE instance from the metadata server (``Metadata-Flavor: Google``)."""
    base = _gce_endpoint()
    values = []
    for item in ("name", "id"):
        request = urllib.request.Request(
            f"{base}/computeMetadata/v1/instance/{item}", headers={"Metadata-Flavor": "Google"}
        )
        body, headers = _no_proxy_open(request, timeout_s)
        if headers.get("Metadata-Flavor") != "Google":
            return None  # something answered, but not a GCE metadata server
        values.append(body.decode().strip())
    name, numeric_id = values
    return (name, numeric_id) if name else None


def gpu_count(timeout_s: float) -> int | None:
    """GPUs this job can use: ``CUDA_VISIBLE_DEVICES`` when set, else ``nvidia-smi -L``; None when unknown."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        devices = [d for d in visible.split(",") if d.strip()]
        return 0 if not devices or devices[0].strip() in ("-1", "NoDevFiles") else len(devices)
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=timeout_s, check=True).stdout
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def _enabled_probes() -> set[str]:
    value = os.environ.get("TRAINLEDGER_DETECT")
    if value is None:
        return set(PROBES)
    return {p.strip().lower() for p in value.split(",")} & set(PROBES)


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        _warn(f"trainledger: {name}={os.environ[name]!r} is not a number; using {default}")
        return default


def detect(
    timeout_s: float | None = None,
    *,
    resource_id: str | None = None,
    provider: str | None = None,
    gpus: int | None = None,
) -> Placement:
    """Where this process runs; explicit values (then environment) win, probes fill the rest.

    All probes run at once and share one deadline of ``timeout_s``: a metadata server that hangs costs
    at most that long, and its answer, if it comes later, is ignored."""
    timeout = timeout_s if timeout_s is not None else _env_float("TRAINLEDGER_METADATA_TIMEOUT_S", 1.0)
    resource_id = resource_id or os.environ.get("TRAINLEDGER_RESOURCE_ID") or None
    provider = provider or os.environ.get("TRAINLEDGER_PROVIDER") or None
    if gpus is None and os.environ.get("TRAINLEDGER_GPUS"):
        try:
            gpus = int(os.environ["TRAINLEDGER_GPUS"])
        except ValueError:
            _warn(f"trainledger: TRAINLEDGER_GPUS={os.environ['TRAINLEDGER_GPUS']!r} is not a whole number")
    wanted = _enabled_probes()
    if resource_id:
        wanted -= {"aws", "gcp"}
    if gpus is not None:
        wanted.discard("gpus")
    probes: dict[str, Callable[[float], Any]] = {
        "aws": ec2_instance_id,
        "gcp": gce_instance,
        "gpus": gpu_count,
    }
    results = _run_with_deadline({name: probes[name] for name in PROBES if name in wanted}, timeout)
    placement = Placement(provider, resource_id, gpus)
    if not placement.resource_id and results.get("aws"):
        placement.provider, placement.resource_id = "aws", results["aws"]
    elif not placement.resource_id and results.get("gcp"):
        name, numeric_id = results["gcp"]
        placement.provider, placement.resource_id, placement.instance_id = "gcp", name, numeric_id
    if placement.gpus is None:
        placement.gpus = results.get("gpus")
    return placement


def _run_with_deadline(calls: dict[str, Callable[[float], Any]], timeout_s: float) -> dict[str, Any]:
    """Run each call in a daemon thread; collect what finished by the deadline."""
    results: dict[str, Any] = {}

    def target(name: str, call: Callable[[float], Any]) -> None:
        try:
            results[name] = call(timeout_s)
        except Exception as exc:  # a probe that fails just found nothing
            log.debug("trainledger: %s probe found nothing: %s", name, exc)

    deadline = time.monotonic() + timeout_s
    threads = [
        threading.Thread(target=target, args=(name, call), name=f"trainledger-probe-{name}", daemon=True)
        for name, call in calls.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return {name: results[name] for name in calls if name in results}


# ---------------------------------------------------------------- writing records


def _iso(moment: datetime | str | None) -> str:
    """UTC, whole seconds, trailing Z; a naive datetime is local time, as Python takes it."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment.strip().replace("Z", "+00:00"))
    moment = moment or datetime.now(UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime):
        return _iso(value)
    return str(value)


_last_us = 0
_stamp_lock = threading.Lock()


def _object_name(experiment_id: str) -> str:
    """``20261103T080000.123456Z-exp-0412-1a2b3c4d.json``: strictly increasing in this process, unique."""
    global _last_us
    with _stamp_lock:
        _last_us = max(time.time_ns() // 1000, _last_us + 1)
        micros = _last_us
    stamp = (
        datetime.fromtimestamp(micros / 1_000_000, UTC).strftime("%Y%m%dT%H%M%S")
        + f".{micros % 1_000_000:06d}Z"
    )
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", experiment_id)[:80]
    return f"{stamp}-{safe}-{uuid.uuid4().hex[:8]}.json"


def write_record(destination: str, record: dict[str, Any], timeout_s: float) -> str:
    """Write one record; returns where it went. Raises on failure (the Run turns that into a warning)."""
    body = (json.dumps(record, default=_json_default, separators=(",", ":")) + "\n").encode("utf-8")
    if destination.startswith(("s3://", "gs://")):
        from trainledger.connectors import object_store

        return object_store.put_object(destination, _object_name(record["experiment_id"]), body, timeout_s)
    path = Path(destination).expanduser()
    if destination.endswith(("/", os.sep)) or path.is_dir():
        path.mkdir(parents=True, exist_ok=True)
        target = path / _object_name(record["experiment_id"])
        fd, tmp = tempfile.mkstemp(dir=path, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
        os.replace(tmp, target)
        return str(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, body)  # one write of one line: concurrent appenders do not interleave
    finally:
        os.close(fd)
    return str(path)


def _configured_log() -> str | None:
    """``TRAINLEDGER_LOG``, else the config's ``[experiments] uri`` (resolved next to the config file)."""
    if os.environ.get("TRAINLEDGER_LOG"):
        return os.environ["TRAINLEDGER_LOG"]
    from trainledger.core import config as config_module

    config = config_module.load()
    if config.experiments.kind != "jsonl" or not config.experiments.uri:
        return None
    return config.resolve(config.experiments.uri)


# ---------------------------------------------------------------- the run


@dataclass
class Run:
    """One experiment's record as this job knows it; each change is written as a whole new record."""

    record: dict[str, Any]
    log: str | None
    resources: list[dict[str, Any]] = field(default_factory=list)
    write_timeout_s: float = DEFAULT_WRITE_TIMEOUT_S
    written: list[str] = field(default_factory=list)

    @property
    def experiment_id(self) -> str:
        return str(self.record["experiment_id"])

    @property
    def ended(self) -> bool:
        return "ended_at" in self.record

    def _open_phase(self) -> dict[str, Any] | None:
        phases = self.record.get("phases") or []
        return phases[-1] if phases and "ended_at" not in phases[-1] else None

    def _add_phase(self, name: str | None, at: str, resources: list[dict[str, Any]] | None) -> None:
        entry: dict[str, Any] = {"phase": name} if name else {}
        entry["started_at"] = at
        chosen = self.resources if resources is None else resources
        if chosen:
            entry["resources"] = chosen
        if name or chosen:
            self.record.setdefault("phases", []).append(entry)

    def phase(
        self,
        name: str,
        *,
        at: datetime | str | None = None,
        resources: list[dict[str, Any]] | None = None,
    ) -> Run:
        """The job moved on to phase ``name`` (``data``, ``train``, ``rollout``, ``eval``) at ``at``."""
        when = _safe_iso(at)
        open_phase = self._open_phase()
        if open_phase is not None:
            open_phase["ended_at"] = when
        self._add_phase(name, when, resources)
        self._write("phase")
        return self

    def end(
        self,
        status: str = "succeeded",
        *,
        metrics: dict[str, Any] | None = None,
        at: datetime | str | None = None,
    ) -> Run:
        """The run ended with ``status``; ``metrics`` like ``{"target": {"before": .41, "after": .55}}``."""
        when = _safe_iso(at)
        open_phase = self._open_phase()
        if open_phase is not None:
            open_phase["ended_at"] = when
        canonical = STATUS_ALIASES.get(status.strip().lower(), status.strip().lower())
        if canonical in STATUSES:
            self.record["status"] = canonical
        else:
            _warn(f"trainledger: status {status!r} is not one of {', '.join(STATUSES)}; not recorded")
        self.record["ended_at"] = when
        if metrics:
            self.record["metrics"] = {**(self.record.get("metrics") or {}), **metrics}
        self._write("end")
        return self

    def _write(self, what: str) -> None:
        if not self.log:
            _warn(
                f"trainledger: no experiment log configured (log=, TRAINLEDGER_LOG or [experiments] uri); "
                f"the {what} of {self.experiment_id} is not recorded"
            )
            return
        destination, record = self.log, json.loads(json.dumps(self.record, default=_json_default))
        outcome: dict[str, Any] = {}

        def target() -> None:
            try:
                outcome["where"] = write_record(destination, record, self.write_timeout_s)
            except Exception as exc:  # recording must never break the job
                outcome["error"] = exc

        thread = threading.Thread(target=target, name="trainledger-write", daemon=True)
        thread.start()
        thread.join(self.write_timeout_s)
        if "where" in outcome:
            self.written.append(outcome["where"])
            log.debug("trainledger: recorded %s of %s at %s", what, self.experiment_id, outcome["where"])
        elif "error" in outcome:
            error = outcome["error"]
            first = str(error).splitlines()[0] if str(error) else ""
            _warn(
                f"trainledger: could not record the {what} of {self.experiment_id} to {destination}: "
                f"{type(error).__name__}: {first}"
            )
        else:
            _warn(
                f"trainledger: recording the {what} of {self.experiment_id} to {destination} took over "
                f"{self.write_timeout_s:g}s; the job goes on without waiting"
            )

    def to_state(self) -> dict[str, Any]:
        """What the CLI keeps between ``trainledger log`` calls."""
        return {
            "record": self.record,
            "log": self.log,
            "resources": self.resources,
            "write_timeout_s": self.write_timeout_s,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Run:
        return cls(
            record=state["record"],
            log=state.get("log"),
            resources=list(state.get("resources") or []),
            write_timeout_s=float(state.get("write_timeout_s", DEFAULT_WRITE_TIMEOUT_S)),
        )

    def __enter__(self) -> Run:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.ended:
            return
        if kind is None:
            self.end("succeeded")
        else:
            self.end("aborted" if issubclass(kind, KeyboardInterrupt) else "failed")


def _safe_iso(at: datetime | str | None) -> str:
    try:
        return _iso(at)
    except (TypeError, ValueError) as exc:
        _warn(f"trainledger: time {at!r} is not ISO 8601 ({exc}); using now")
        return _iso(None)


_current: Run | None = None


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
) -> Run:
    """Record the start of ``experiment_id`` and make it the current run of this process.

    ``resources`` lists every machine of a multi-node job (``[{"provider": "aws", "resource_id": "i-…",
    "gpus": 8}, …]``; log from one rank, since the latest record's ``phases`` replaces earlier ones);
    without it this machine is detected."""
    global _current
    when = _safe_iso(at)
    if resources is None:
        placement = detect(timeout_s, resource_id=resource_id, provider=provider, gpus=gpus)
        here = placement.resource()
        resources = [here] if here else []
        if not here:
            _warn(
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
            destination = _configured_log()
        except Exception as exc:  # a broken config must not stop the job
            _warn(f"trainledger: cannot read the config for the experiment log: {exc}")
    run = Run(
        record=record,
        log=destination,
        resources=resources,
        write_timeout_s=write_timeout_s
        if write_timeout_s is not None
        else _env_float("TRAINLEDGER_WRITE_TIMEOUT_S", DEFAULT_WRITE_TIMEOUT_S),
    )
    run._add_phase(phase, when, None)
    run._write("start")
    _current = run
    return run


def current() -> Run | None:
    return _current


def phase(
    name: str, *, at: datetime | str | None = None, resources: list[dict[str, Any]] | None = None
) -> Run | None:
    """Move the current run to phase ``name``; a warning (not an error) when no run was started."""
    if _current is None:
        _warn("trainledger: runlog.phase() before runlog.start(); nothing recorded")
        return None
    return _current.phase(name, at=at, resources=resources)


def end(
    status: str = "succeeded", *, metrics: dict[str, Any] | None = None, at: datetime | str | None = None
) -> Run | None:
    """End the current run; a warning (not an error) when no run was started."""
    if _current is None:
        _warn("trainledger: runlog.end() before runlog.start(); nothing recorded")
        return None
    return _current.end(status, metrics=metrics, at=at)
