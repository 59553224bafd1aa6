"""Writing one experiment-log record: to a JSON Lines file, a folder, or an ``s3://`` / ``gs://`` prefix.

Objects are named ``<UTC time>-<experiment>-<random>.json`` so that name order is time order and concurrent
jobs never overwrite each other; a JSON Lines file gets one appended line per record.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainledger.runlog.warning import warn

DEFAULT_WRITE_TIMEOUT_S = 10.0
# As experiments.log.STATUSES (kept here so that importing the run logger stays free of the warehouse stack).
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


def iso(moment: datetime | str | None) -> str:
    """UTC, whole seconds, trailing Z; a naive datetime is local time, as Python takes it."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment.strip().replace("Z", "+00:00"))
    moment = moment or datetime.now(UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime):
        return iso(value)
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
    """Write one record; returns where it went. Raises on failure (the TrainingRun turns that into a warning)."""
    body = (json.dumps(record, default=json_default, separators=(",", ":")) + "\n").encode("utf-8")
    if destination.startswith(("s3://", "gs://")):
        from trainledger.core import object_store

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


def configured_log() -> str | None:
    """``TRAINLEDGER_LOG``, else the config's ``[experiments] uri`` (resolved next to the config file)."""
    if os.environ.get("TRAINLEDGER_LOG"):
        return os.environ["TRAINLEDGER_LOG"]
    from trainledger.core import config as config_module

    config = config_module.load()
    if config.experiments.kind != "jsonl" or not config.experiments.uri:
        return None
    return config.resolve(config.experiments.uri)


def safe_iso(at: datetime | str | None) -> str:
    try:
        return iso(at)
    except (TypeError, ValueError) as exc:
        warn(f"trainledger: time {at!r} is not ISO 8601 ({exc}); using now")
        return iso(None)
