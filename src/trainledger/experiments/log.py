"""The experiment log (SPEC §5): JSON Lines records merged field by field into experiments.

A job writes a start record and later an end record with the same ``experiment_id``; later records
update earlier ones, so reading in file-name order then line order gives the latest state.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trainledger.core import json_lines, providers
from trainledger.core.config import Config
from trainledger.core.errors import InputError, SourceError
from trainledger.core.labels import LabelScheme, canonical_value
from trainledger.core.reporter import Reporter

OPEN_END = datetime(2100, 1, 1)
KNOWN_FIELDS = {
    "experiment_id",
    "project",
    "method",
    "status",
    "started_at",
    "ended_at",
    "phases",
    "params",
    "estimate",
    "metrics",
    "name",
    "description",
    "owner",
    "tags",
}
STATUSES = {"running", "succeeded", "failed", "aborted", "cancelled"}
MAX_WEIGHT = 2**31 - 1  # a resource's gpus or weight is kept as a 32-bit INTEGER (experiment_resources)


@dataclass
class Window:
    phase: str | None
    provider: str | None  # the provider table's id (core/providers.py): "Azure" and "Microsoft" are azure
    resource_id: str
    gpus: int
    started_at: datetime
    ended_at: datetime


@dataclass
class ExperimentHeader:
    """What every view of an experiment starts with (the log, `experiments`, `reconcile`)."""

    experiment_id: str
    project: str | None
    method: str | None
    status: str | None
    started_at: datetime | None
    ended_at: datetime | None


@dataclass
class Experiment(ExperimentHeader):
    params: dict[str, Any]
    estimate: dict[str, Any]
    metrics: dict[str, Any]
    record: dict[str, Any]
    windows: list[Window] = field(default_factory=list)


def parse_time(value: Any, where: str, name: str) -> datetime | None:
    """ISO 8601 with a zone, to naive UTC; a time without a zone is ambiguous and refused."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"{where}: field {name}: expected an ISO 8601 timestamp, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{where}: field {name}: expected an ISO 8601 timestamp, got {value!r}") from None
    if parsed.tzinfo is None:
        raise InputError(
            f"{where}: field {name}: timestamp {value!r} has no time zone; write it in UTC with a trailing Z"
        )
    return parsed.astimezone(UTC).replace(tzinfo=None)


RECORD_SUFFIXES = (".jsonl", ".json", ".ndjson")


def _record_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if root.is_dir():
        return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in RECORD_SUFFIXES)
    raise SourceError(f"experiment log {root} does not exist")


def parse_lines(origin: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    """The JSON Lines records of one file or object, each with its location ("origin:line")."""
    return [
        (f"{origin}:{number}", record)
        for number, record in json_lines.objects(text, origin, "an experiment record")
    ]


def _file_texts(root: Path) -> list[tuple[str, str]]:
    texts = []
    for path in _record_files(root):
        try:
            texts.append((str(path), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            raise InputError(f"{path}: not UTF-8 text; expected JSON Lines") from None
    return texts


def _name(origin: str, root: str) -> str:
    """A record file's name within the log (the whole log when it is one file), wherever the log is."""
    return origin[len(root) :].lstrip("/") if origin.startswith(root) else origin


def _object_texts(uri: str, reporter: Reporter) -> list[tuple[str, str]]:
    from trainledger.core import object_store

    objects = object_store.read_objects(uri, RECORD_SUFFIXES)
    if not objects:
        reporter.warn(f"experiment log {uri}: no record objects ({', '.join(RECORD_SUFFIXES)}) under it yet")
    return list(objects)


def read_records(root: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every record with its location ("file:line"), in file-name then line order."""
    return LogContent(_file_texts(root)).records()


def read_object_records(uri: str, reporter: Reporter) -> list[tuple[str, dict[str, Any]]]:
    """Every record under an ``s3://`` / ``gs://`` prefix, in object-name then line order."""
    return LogContent(_object_texts(uri, reporter)).records()


@dataclass(frozen=True)
class LogContent:
    """The experiment log as read, before parsing: (origin, JSON Lines text) per file or object in name
    order, or the records themselves (MLflow runs). Its digest tells an unchanged log from a changed one
    without parsing it."""

    texts: list[tuple[str, str]]
    parsed: list[tuple[str, dict[str, Any]]] | None = None
    root: str = ""  # where the log is, left out of the digest: a moved log is the same log

    def digest(self) -> str:
        h = hashlib.sha256()
        if self.parsed is not None:
            h.update(json.dumps(self.parsed, sort_keys=True, default=str).encode())
        for origin, text in self.texts:
            h.update(f"{_name(origin, self.root)}\0{len(text)}\0{text}\0".encode())
        return h.hexdigest()

    def records(self) -> list[tuple[str, dict[str, Any]]]:
        if self.parsed is not None:
            return self.parsed
        return [record for origin, text in self.texts for record in parse_lines(origin, text)]


def read_log(config: Config, reporter: Reporter) -> LogContent | None:
    """The log from wherever ``[experiments]`` points, unparsed; None when no log is configured."""
    settings = config.experiments
    if settings.kind == "mlflow":
        from trainledger.experiments import mlflow_log

        return LogContent([], mlflow_log.records(config, reporter))
    if settings.kind == "slurm":
        from trainledger.experiments import slurm_log

        return LogContent([], slurm_log.records(config, reporter))
    if not settings.uri:
        return None
    if settings.uri.startswith(("s3://", "gs://")):
        return LogContent(_object_texts(settings.uri, reporter), root=settings.uri)
    if "://" in settings.uri:
        raise SourceError(f"experiment log {settings.uri}: expected a local path, an s3:// or a gs:// prefix")
    root = config.resolve(settings.uri)
    if not Path(root).exists():
        # A new project has logged nothing yet: no experiments, said once per run, not an error.
        reporter.warn(f"experiment log {root} does not exist yet: no experiments")
        return LogContent([], root=root)
    return LogContent(_file_texts(Path(root)), root=root)


def merge(
    records: list[tuple[str, dict[str, Any]]], reporter: Reporter
) -> dict[str, tuple[str, dict[str, Any]]]:
    """One record per experiment, later fields over earlier ones. An experiment's first record is kept as
    parsed, not copied (most experiments have one): records are never changed once parsed."""
    merged: dict[str, tuple[str, dict[str, Any]]] = {}
    spelled: dict[str, tuple[str, str]] = {}  # canonical id -> its first spelling and where
    for where, record in records:
        raw_id = record.get("experiment_id")
        if not isinstance(raw_id, str) or not raw_id.strip():
            raise InputError(f"{where}: field experiment_id: expected a non-empty string, got {raw_id!r}")
        unknown = sorted(set(record) - KNOWN_FIELDS)
        if unknown:
            reporter.warn(f"{where}: ignoring unknown field(s) {', '.join(unknown)}")
        key = canonical_value(raw_id)
        first, first_where = spelled.setdefault(key, (raw_id, where))
        if raw_id != first:
            reporter.warn(
                f"{where}: experiment_id {raw_id!r} differs from {first!r} ({first_where}) only in case or "
                f"surrounding spaces; both are experiment {key!r}"
            )
        previous = merged.get(key)
        merged[key] = (where, {**previous[1], **record} if previous else record)
    return merged


EXPECTED: dict[type, str] = {dict: "a JSON object", list: "a list", str: "a string"}
JSON_TYPE: dict[type, str] = {dict: "an object", list: "a list", str: "a string", bool: "true or false"}


def _typed(record: dict[str, Any], where: str, name: str, kind: type) -> None:
    """A field that is present and not null must be of ``kind``; anything else is refused naming it."""
    value = record.get(name)
    if value is not None and not isinstance(value, kind):
        got = JSON_TYPE.get(type(value), "a number")
        raise InputError(f"{where}: field {name}: expected {EXPECTED[kind]}, got {got}")


def build(where: str, record: dict[str, Any], scheme: LabelScheme) -> Experiment:
    for name in ("project", "method", "status", "started_at", "ended_at"):
        _typed(record, where, name, str)
    for name in ("params", "estimate", "metrics"):
        _typed(record, where, name, dict)
    _typed(record, where, "phases", list)
    started = parse_time(record.get("started_at"), where, "started_at")
    ended = parse_time(record.get("ended_at"), where, "ended_at")
    if started and ended and ended < started:
        raise InputError(
            f"{where}: ended_at {record['ended_at']} is before started_at {record['started_at']}"
        )
    status = canonical_value(record["status"]) if record.get("status") else None
    if status and status not in STATUSES:
        raise InputError(
            f"{where}: field status: expected one of {', '.join(sorted(STATUSES))}, got {status!r}"
        )
    method_raw = record.get("method")
    method = scheme.method(method_raw) if method_raw else None
    if method_raw and method is None:
        raise InputError(
            f"{where}: field method: {method_raw!r} is not a known method ({', '.join(sorted(scheme.methods))})"
        )
    experiment = Experiment(
        experiment_id=canonical_value(record["experiment_id"]),
        project=canonical_value(record["project"]) if record.get("project") else None,
        method=method,
        status=status,
        started_at=started,
        ended_at=ended,
        params=dict(record.get("params") or {}),
        estimate=dict(record.get("estimate") or {}),
        metrics=dict(record.get("metrics") or {}),
        record=record,
    )
    phases = record.get("phases") or []
    if not isinstance(phases, list):
        raise InputError(f"{where}: field phases: expected a list")
    for index, phase in enumerate(phases):
        pwhere = f"{where}: phases[{index}]"
        if not isinstance(phase, dict):
            raise InputError(f"{pwhere}: expected an object")
        phase_raw = phase.get("phase")
        phase_name = scheme.phase(phase_raw) if phase_raw else None
        if phase_raw and phase_name is None:
            raise InputError(
                f"{pwhere}: phase {phase_raw!r} is not a known phase ({', '.join(sorted(scheme.phases))})"
            )
        p_start = parse_time(phase.get("started_at"), pwhere, "started_at") or started
        p_end = parse_time(phase.get("ended_at"), pwhere, "ended_at") or ended or OPEN_END
        if p_start is None:
            raise InputError(f"{pwhere}: no started_at on the phase or the experiment")
        if p_end < p_start:
            raise InputError(f"{pwhere}: ended_at is before started_at")
        for rindex, resource in enumerate(phase.get("resources") or []):
            rwhere = f"{pwhere}.resources[{rindex}]"
            if not isinstance(resource, dict) or not str(resource.get("resource_id") or "").strip():
                raise InputError(f"{rwhere}: expected an object with a resource_id")
            if "gpus" in resource and "weight" in resource:
                raise InputError(f"{rwhere}: give gpus or weight, not both (both weigh the run's share)")
            # `weight` weighs a share where GPUs do not apply: judged tokens of a run on an API workspace.
            field = "weight" if "weight" in resource else "gpus"
            gpus = resource.get(field, 0)
            if not isinstance(gpus, int) or isinstance(gpus, bool) or not 0 <= gpus <= MAX_WEIGHT:
                raise InputError(
                    f"{rwhere}: field {field}: expected a whole number from 0 to {MAX_WEIGHT}, got {gpus!r}"
                )
            provider = resource.get("provider")
            experiment.windows.append(
                Window(
                    phase_name,
                    None if provider is None else providers.provider_id(str(provider)),
                    str(resource["resource_id"]).strip(),
                    gpus,
                    p_start,
                    p_end,
                )
            )
    return experiment
