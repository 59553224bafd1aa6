"""One experiment's record as the job knows it; each change (phase, end) is written as a whole new record."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any

from trainledger.runlog.records import (
    DEFAULT_WRITE_TIMEOUT_S,
    STATUS_ALIASES,
    STATUSES,
    json_default,
    safe_iso,
    write_record,
)
from trainledger.runlog.warning import warn

log = logging.getLogger(__name__)


@dataclass
class TrainingRun:
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
    ) -> TrainingRun:
        """The job moved on to phase ``name`` (``data``, ``train``, ``rollout``, ``eval``) at ``at``."""
        when = safe_iso(at)
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
    ) -> TrainingRun:
        """The run ended with ``status``; ``metrics`` like ``{"target": {"before": .41, "after": .55}}``."""
        when = safe_iso(at)
        open_phase = self._open_phase()
        if open_phase is not None:
            open_phase["ended_at"] = when
        canonical = STATUS_ALIASES.get(status.strip().lower(), status.strip().lower())
        if canonical in STATUSES:
            self.record["status"] = canonical
        else:
            warn(f"trainledger: status {status!r} is not one of {', '.join(STATUSES)}; not recorded")
        self.record["ended_at"] = when
        if metrics:
            self.record["metrics"] = {**(self.record.get("metrics") or {}), **metrics}
        self._write("end")
        return self

    def _write(self, what: str) -> None:
        if not self.log:
            warn(
                f"trainledger: no experiment log configured (log=, TRAINLEDGER_LOG or [experiments] uri); "
                f"the {what} of {self.experiment_id} is not recorded"
            )
            return
        destination, record = self.log, json.loads(json.dumps(self.record, default=json_default))
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
            warn(
                f"trainledger: could not record the {what} of {self.experiment_id} to {destination}: "
                f"{type(error).__name__}: {first}"
            )
        else:
            warn(
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
    def from_state(cls, state: dict[str, Any]) -> TrainingRun:
        return cls(
            record=state["record"],
            log=state.get("log"),
            resources=list(state.get("resources") or []),
            write_timeout_s=float(state.get("write_timeout_s", DEFAULT_WRITE_TIMEOUT_S)),
        )

    def __enter__(self) -> TrainingRun:
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
