"""The experiment log read from Slurm accounting (``[experiments] kind = "slurm"``), as SPEC §5 records.

Files are the interface: ``sacct --json`` dumps (Slurm 21.08 and later) in a file, a folder, a local
file-name prefix or an ``s3://`` / ``gs://`` prefix, read in name order, as a nightly job drops them;
optionally the output of a configured ``sacct`` command, read last. A job seen in several dumps takes its
latest state. Jobs become experiments: an array's tasks (and a heterogeneous job's components) roll up to
one experiment, each task a phase window; steps are inside their job's allocation and are not read. A job's
nodes are its resources (node → cloud resource by the mapping file, else the node name), its allocated
``gres/gpu`` count, divided over its nodes, the weight that rule 4 splits a shared node by.

The dump's shape changed between Slurm versions (data_parser v0.0.37 .. v0.0.4x, see the research notes
in README "Slurm jobs"): numbers may be plain or ``{"set", "infinite", "number"}``; ``state.current`` a
string or a list; ``comment`` and ``wckey`` strings or objects; ``meta.Slurm`` or ``meta.slurm``. Each
accessor below accepts every form.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

from trainledger.core.config import Config
from trainledger.core.config_labels import SlurmConfig
from trainledger.core.errors import ConfigError, InputError, SourceError
from trainledger.core.hostlist import expand
from trainledger.core.labels import LabelScheme, Resolved
from trainledger.core.reporter import Reporter
from trainledger.core.timestamps import iso_utc

# Slurm job states (job_state_codes) → SPEC statuses; TIMEOUT and PREEMPTED are runs stopped from outside.
STATES = {
    "COMPLETED": "succeeded",
    "FAILED": "failed",
    "NODE_FAIL": "failed",
    "OUT_OF_MEMORY": "failed",
    "BOOT_FAIL": "failed",
    "DEADLINE": "failed",
    "CANCELLED": "cancelled",
    "TIMEOUT": "aborted",
    "PREEMPTED": "aborted",
}
WORST_FIRST = ("running", "failed", "aborted", "cancelled", "succeeded")
SUFFIXES = (".json",)
_PAIR = re.compile(r"([A-Za-z0-9_.:/-]+)=([^,;\s]*)")


def number(value: Any) -> int | None:
    """A plain number, or Slurm's ``{"set": true, "infinite": false, "number": N}`` (unset or infinite → None)."""
    if isinstance(value, dict):
        if not value.get("set", True) or value.get("infinite"):
            return None
        value = value.get("number")
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    return None


def text(value: Any, *keys: str) -> str:
    """A string field that newer versions wrap in an object (``wckey.wckey``, ``comment.job``)."""
    if isinstance(value, dict):
        for key in keys:
            if isinstance(value.get(key), str) and value[key].strip():
                return value[key].strip()
        return ""
    return value.strip() if isinstance(value, str) else ""


def state(job: dict[str, Any]) -> str:
    """``state.current`` (a string before 23.11, a list since) or a plain ``state`` string."""
    raw = job.get("state")
    current = raw.get("current") if isinstance(raw, dict) else raw
    if isinstance(current, list):
        current = current[0] if current else ""
    return str(current or "").upper()


def status(slurm_state: str) -> str:
    for name, mapped in STATES.items():
        if slurm_state.startswith(name):  # "CANCELLED by 1234" in some versions
            return mapped
    return "running"  # PENDING, RUNNING, REQUEUED, SUSPENDED, COMPLETING, ...


def field(job: dict[str, Any], name: str) -> str:
    if name == "comment":
        return text(job.get("comment"), "job", "administrator", "system")
    if name == "wckey":
        return text(job.get("wckey"), "wckey")
    return text(job.get(name))


def gpus(job: dict[str, Any]) -> int:
    """GPUs allocated to the whole job: the untyped ``gres/gpu`` TRES, else the sum of typed ones
    (``gpu:h100``); sacct lists both for one allocation, so adding them all would count twice."""
    tres = job.get("tres")
    allocated = tres.get("allocated") if isinstance(tres, dict) else None
    untyped, typed = None, 0
    for item in allocated if isinstance(allocated, list) else []:
        if not isinstance(item, dict) or item.get("type") != "gres":
            continue
        name, count = str(item.get("name") or ""), number(item.get("count")) or 0
        if name == "gpu":
            untyped = count
        elif name.startswith("gpu:"):
            typed += count
    return untyped if untyped is not None else typed


def window(job: dict[str, Any]) -> tuple[int | None, int | None]:
    """(start, end) epoch seconds; 0 means unset. A missing start is end - elapsed, as SARC reads it."""
    raw = job.get("time")
    times: dict[str, Any] = raw if isinstance(raw, dict) else {}
    start, end, elapsed = number(times.get("start")), number(times.get("end")), number(times.get("elapsed"))
    if not start and end and elapsed:
        start = end - elapsed
    return start or None, end or None


def group_id(job: dict[str, Any]) -> int:
    """The job an array task or a heterogeneous component rolls up to."""
    for key in ("array", "het"):
        part = job.get(key)
        if isinstance(part, dict) and (number(part.get("job_id")) or 0) > 0:
            return number(part["job_id"]) or 0
    return number(job.get("job_id")) or 0


def labels(job: dict[str, Any], settings: SlurmConfig, scheme: LabelScheme, composite: str) -> Resolved:
    """What the configured fields say: ``key=value`` pairs, or a whole value read as a composite label."""
    tags: dict[str, object] = {}
    for name in settings.labels:
        value = field(job, name)
        pairs = _PAIR.findall(value)
        found = dict(pairs) if pairs else ({composite: value} if value else {})
        for key, item in found.items():
            tags.setdefault(key, item)
    return scheme.resolve(tags)


def node_map(config: Config) -> dict[str, tuple[str, str | None]]:
    """The ``nodes`` mapping file: node → (resource id, provider or None)."""
    location = config.experiments.slurm.nodes
    if not location:
        return {}
    path = Path(config.resolve(location))
    try:
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    except OSError as exc:
        raise SourceError(f"slurm node mapping {path}: cannot read it ({exc.strerror})") from None
    mapping: dict[str, tuple[str, str | None]] = {}
    for line, row in enumerate(rows, start=2):
        node, resource = (row.get("node") or "").strip(), (row.get("resource_id") or "").strip()
        if not node or not resource:
            raise InputError(f"{path}:{line}: expected columns node,resource_id[,provider] with both set")
        mapping[node] = (resource, (row.get("provider") or "").strip() or None)
    return mapping


def _dump_texts(config: Config, reporter: Reporter) -> list[tuple[str, str]]:
    uri = config.experiments.uri
    texts: list[tuple[str, str]] = []
    if uri and uri.startswith(("s3://", "gs://")):
        from trainledger.core import object_store

        texts = list(object_store.read_objects(uri, SUFFIXES))
    elif uri:
        root = Path(config.resolve(uri))
        if root.is_file():
            paths = [root]
        elif root.is_dir():
            paths = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
        else:  # a file-name prefix: /var/spool/sacct/dump- matches dump-2026-11-01.json, ...
            paths = sorted(
                p for p in root.parent.glob(f"{root.name}*") if p.is_file() and p.suffix in SUFFIXES
            )
            if not paths and not root.parent.is_dir():
                raise SourceError(f"slurm accounting dumps {root}: no such file, folder or prefix")
        for path in paths:
            try:
                texts.append((str(path), path.read_text(encoding="utf-8")))
            except UnicodeDecodeError:
                raise InputError(f"{path}: not UTF-8 text; expected sacct --json output") from None
    if config.experiments.slurm.command:
        texts.append(_run_command(config.experiments.slurm))
    if not texts:
        reporter.warn(f"slurm accounting dumps {uri}: no *.json dump found yet")
    return texts


def _run_command(settings: SlurmConfig) -> tuple[str, str]:
    command = settings.command or ""
    where = f"[experiments.slurm] command {command!r}"
    try:
        done = subprocess.run(
            shlex.split(command),
            capture_output=True,
            text=True,
            timeout=settings.command_timeout_s,
            check=False,
        )
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{where}: cannot run it ({exc})") from None
    except subprocess.TimeoutExpired:
        raise SourceError(f"{where}: no answer within {settings.command_timeout_s:g} s") from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise SourceError(f"{where}: exit code {done.returncode}: {first}")
    return f"command {command!r}", done.stdout


def parse_dump(origin: str, content: str) -> list[tuple[str, dict[str, Any]]]:
    """The jobs of one dump, each with its location ("origin: jobs[i] (job N)")."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{origin}: not valid JSON ({exc.msg} at line {exc.lineno}); expected sacct --json"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
        raise InputError(f'{origin}: expected sacct --json output, an object with a "jobs" list')
    jobs = []
    for index, job in enumerate(data["jobs"]):
        job_id = number(job.get("job_id")) if isinstance(job, dict) else None
        if job_id is None or job_id <= 0:
            raise InputError(f"{origin}: jobs[{index}]: expected an object with a job_id number")
        jobs.append((f"{origin}: jobs[{index}] (job {job_id})", job))
    return jobs


def _resources(
    job: dict[str, Any], where: str, settings: SlurmConfig, mapping: dict[str, tuple[str, str | None]]
) -> list[dict[str, Any]]:
    nodes = expand(text(job.get("nodes")), where)
    total = gpus(job)
    out = []
    for index, node in enumerate(nodes):
        resource, provider = mapping.get(node, (node, None))
        share = total // len(nodes) + (1 if index < total % len(nodes) else 0)
        out.append({"provider": provider or settings.provider, "resource_id": resource, "gpus": share})
    return out


def records(config: Config, reporter: Reporter) -> list[tuple[str, dict[str, Any]]]:
    """One SPEC §5 record per experiment (a job, an array or a heterogeneous job), in first-seen order."""
    settings = config.experiments.slurm
    if not config.experiments.uri and not settings.command:
        raise ConfigError(
            '[experiments] kind = "slurm" needs uri (where the sacct --json dumps are) or [experiments.slurm] command'
        )
    scheme = LabelScheme(config.labels)
    composite = config.labels.composite[0] if config.labels.composite else "cost-label"
    mapping = node_map(config)
    latest: dict[int, tuple[str, dict[str, Any]]] = {}
    for origin, content in _dump_texts(config, reporter):
        for where, job in parse_dump(origin, content):
            latest[number(job["job_id"]) or 0] = (where, job)  # a later dump has the job's later state
    groups: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for where, job in latest.values():
        groups.setdefault(group_id(job), []).append((where, job))
    unmapped = set()
    out = []
    for members in groups.values():
        members.sort(key=lambda m: (window(m[1])[0] or 0, number(m[1]["job_id"]) or 0))
        record = _combine(members, settings, scheme, composite, mapping, reporter)
        out.append((members[0][0], record))
        if mapping:
            unmapped |= {
                n
                for _, job in members
                for n in expand(text(job.get("nodes")), members[0][0])
                if n not in mapping
            }
    if unmapped:
        reporter.warn(
            f"slurm node mapping {settings.nodes}: no entry for node(s) {', '.join(sorted(unmapped)[:5])}"
            f"{' ...' if len(unmapped) > 5 else ''}; their names are used as resource ids"
        )
    reporter.step(f"slurm accounting: {len(latest)} job(s), {len(out)} experiment(s)")
    return out


def _combine(
    members: list[tuple[str, dict[str, Any]]],
    settings: SlurmConfig,
    scheme: LabelScheme,
    composite: str,
    mapping: dict[str, tuple[str, str | None]],
    reporter: Reporter,
) -> dict[str, Any]:
    _, first = members[0]
    resolved = [labels(job, settings, scheme, composite) for _, job in members]
    for (where, _), found in zip(members, resolved, strict=True):
        if found.problem and found.status != "partial":
            reporter.warn(f"{where}: labels: {found.problem}")
    experiment = next((r.experiment_id for r in resolved if r.experiment_id), None)
    if experiment is None:
        name = field(first, "name")
        experiment = name if settings.experiment == "name" and name else f"slurm-{group_id(first)}"
    project = next((r.project for r in resolved if r.project), None)
    if project is None and settings.project:
        project = field(first, settings.project) or None
    method = next((r.method for r in resolved if r.method), None)
    statuses = [status(state(job)) for _, job in members]
    record: dict[str, Any] = {
        "experiment_id": experiment,
        "status": next(s for s in WORST_FIRST if s in statuses),
    }
    if project:
        record["project"] = project
    if method:
        record["method"] = method
    if field(first, "name"):
        record["name"] = field(first, "name")
    if text(first.get("user")):
        record["owner"] = text(first.get("user"))
    phases = []
    for (where, job), found in zip(members, resolved, strict=True):
        start, end = window(job)
        resources = _resources(job, where, settings, mapping)
        if start is None or not resources:
            continue  # never ran: no resources, no cost
        phase: dict[str, Any] = {"started_at": iso_utc(start or None), "resources": resources}
        if found.phase:
            phase["phase"] = found.phase
        if end:
            phase["ended_at"] = iso_utc(end or None)
        phases.append(phase)
    starts = [p["started_at"] for p in phases]
    ends = [p.get("ended_at") for p in phases]
    if starts:
        record["started_at"] = min(starts)
    if ends and all(ends) and record["status"] != "running":
        record["ended_at"] = max(e for e in ends if e)
    if phases:
        record["phases"] = phases
    return record
