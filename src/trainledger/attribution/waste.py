"""Hidden cost (SPEC §1, §4): idle GPUs, failed or aborted runs, and re-runs of failed ones.

Idle cost is placed by attribution (rule ``idle``); failure and rework are properties of experiments in
the log, so they are worked out here, at read time, and never stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from trainledger.warehouse.connection import Connection, run

FAILED_STATUSES = ("failed", "aborted", "cancelled")


@dataclass(frozen=True)
class Outcomes:
    """Failed experiments, split by whether a later run repeated them (their cost is then rework)."""

    failed: list[str]
    reruns: list[str]

    def params(self) -> dict[str, list[str]]:
        return {"failed": self.failed, "reruns": self.reruns}


def _same_work(params_json: str | None) -> str | None:
    """Params in a canonical form; None when the log recorded none (a repeat cannot be told)."""
    params = json.loads(params_json or "{}")
    return json.dumps(params, sort_keys=True) if params else None


def outcomes(con: Connection) -> Outcomes:
    """A failed run is rework when an experiment of the same project, method and params started after it."""
    experiments = [
        (exp_id, status, started, (project, method, _same_work(params)))
        for exp_id, project, method, status, started, params in run(
            con, "report/waste_experiments"
        ).fetchall()
    ]
    last_start: dict[tuple[str | None, str | None, str | None], datetime] = {}
    for _, _, started, work in experiments:
        if started is not None and work[2] is not None:
            last_start[work] = max(started, last_start.get(work, started))
    failed: list[str] = []
    reruns: list[str] = []
    for exp_id, status, started, work in experiments:
        if status not in FAILED_STATUSES:
            continue
        latest = last_start.get(work)
        repeated = started is not None and latest is not None and latest > started
        (reruns if repeated else failed).append(exp_id)
    return Outcomes(failed, reruns)


def experiments_waste(con: Connection, currencies: dict[str, str]) -> dict[str, dict[str, Decimal]]:
    """For each experiment, in its currency (id -> currency), read at once for all of them:
    ``idle``: idle cost on the resources the run used, within its run (see queries/report/waste_idle.sql);
    ``failed``: everything the experiment cost when it failed, was aborted or cancelled (re-run or not)."""
    ids = {"ids": list(currencies)}
    idle = {(e, c): units for e, c, units in run(con, "report/waste_idle", ids).fetchall()}
    statuses = {**ids, "statuses": list(FAILED_STATUSES)}
    failed = {(e, c): cost for e, c, cost in run(con, "report/waste_failed_cost", statuses).fetchall()}
    return {
        e: {
            "idle": Decimal(int(idle.get((e, c), 0))).scaleb(-12),
            "failed": Decimal(failed.get((e, c), 0)),
        }
        for e, c in currencies.items()
    }
