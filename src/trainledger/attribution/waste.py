"""Hidden cost (SPEC §1, §4): idle GPUs, failed or aborted runs, re-runs of failed ones, and reserved
capacity nobody used.

Idle cost and unused commitment are placed by attribution (rules ``idle`` and ``reservation``); failure and
rework are properties of experiments in the log, and which reservation a run used is the log's windows on
its instances: those are worked out here, at read time, and never stored.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_DOWN, Decimal
from typing import Any

from trainledger.core.config_spend import ReservationConfig
from trainledger.warehouse.connection import Connection, run

FAILED_STATUSES = ("failed", "aborted", "cancelled")
_MICROSECOND = timedelta(microseconds=1)


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


def experiments_waste(
    con: Connection, currencies: dict[str, str], failed_cost: list[tuple[Any, ...]] | None = None
) -> dict[str, dict[str, Decimal]]:
    """For each experiment, in its currency (id -> currency), read at once for all of them:
    ``idle``: idle cost on the resources the run used, within its run (see queries/report/waste_idle.sql);
    ``failed``: everything the experiment cost when it failed, was aborted or cancelled (re-run or not).
    ``failed_cost``: the rows of ``report/waste_failed_cost`` when the caller has them already."""
    ids = {"ids": list(currencies)}
    run(con, "report/run_spans")
    idle = {(e, c): units for e, c, units in run(con, "report/waste_idle", ids).fetchall()}
    if failed_cost is None:
        statuses = {**ids, "statuses": list(FAILED_STATUSES)}
        failed_cost = run(con, "report/waste_failed_cost", statuses).fetchall()
    failed = {(e, c): cost for e, c, cost in failed_cost}
    return {
        e: {
            "idle": Decimal(int(idle.get((e, c), 0))).scaleb(-12),
            "failed": Decimal(failed.get((e, c), 0)),
        }
        for e, c in currencies.items()
    }


@dataclass(frozen=True)
class ReservedUse:
    """A reservation a run used (the log places it on one of the reservation's instances inside its window),
    in the run's currency: the reserved capacity nobody used while the run ran, which is the run's hidden
    cost as idle is, and over the whole window, which is the owner's (README "Reserved GPU capacity")."""

    id: str
    project: str
    start: datetime
    end: datetime
    during_run: Decimal
    in_window: Decimal


def reserved_capacity(
    con: Connection, currencies: dict[str, str], reservations: Sequence[ReservationConfig]
) -> dict[str, list[ReservedUse]]:
    """For each experiment (id -> currency), the ``[[reservations]]`` it used, read at once for all of them
    (queries/report/reconcile_reserved_windows.sql, reservation_unused.sql). The unused part during the run
    is each unused stretch's overlap with the run [start, end), in units of 1e-12 rounded toward zero, as
    for idle; concurrent runs on one reservation each count the stretch they shared."""
    out: dict[str, list[ReservedUse]] = {e: [] for e in currencies}
    if not reservations or not currencies:
        return out
    params = {"ids": list(currencies), "instances": sorted({i for r in reservations for i in r.instances})}
    windows: dict[str, list[tuple[Any, ...]]] = {}
    run(con, "report/run_spans")
    for exp_id, *rest in run(con, "report/reconcile_reserved_windows", params).fetchall():
        windows.setdefault(exp_id, []).append(tuple(rest))
    found: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    ids = {"reservations": [r.id for r in reservations]}
    for rid, currency, *rest in run(con, "report/reservation_unused", ids).fetchall():
        found.setdefault((rid, currency), []).append(tuple(rest))
    unused = {key: _Stretches(rows) for key, rows in found.items()}
    none = _Stretches([])
    for exp_id, currency in currencies.items():
        mine = windows.get(exp_id, [])
        for r in reservations:
            on_it = [w for w in mine if w[0] in r.instances and w[1] < r.end and w[2] > r.start]
            if on_it:
                stretches = unused.get((r.id, currency), none)
                during = stretches.during(on_it[0][3], on_it[0][4])
                out[exp_id].append(ReservedUse(r.id, r.project, r.start, r.end, during, stretches.total))
    return out


class _Stretches:
    """One reservation's unused commitment in one currency: (start, end, cost) stretches, by start, so a
    run finds the few it overlaps by bisection (a year of hourly unused rows, read by many runs)."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.total = sum((Decimal(c) for *_, c in rows), Decimal(0))
        timed = sorted((s, e, Decimal(c)) for s, e, c in rows if s is not None and e is not None and e > s)
        self.starts = [s for s, _, _ in timed]
        self.timed = timed
        self.longest = max((e - s for s, e, _ in timed), default=timedelta(0))

    def during(self, run_start: datetime, run_end: datetime) -> Decimal:
        """The stretches' parts inside the run [run_start, run_end), by time."""
        lo = bisect_left(self.starts, run_start - self.longest)
        hi = bisect_left(self.starts, run_end)
        return sum((_part(c, s, e, run_start, run_end) for s, e, c in self.timed[lo:hi]), Decimal(0))


def _part(cost: Decimal, start: datetime, end: datetime, run_start: datetime, run_end: datetime) -> Decimal:
    overlap = (min(end, run_end) - max(start, run_start)) // _MICROSECOND
    if overlap <= 0:
        return Decimal(0)
    share = cost * overlap / ((end - start) // _MICROSECOND)
    return share.quantize(Decimal("1e-12"), ROUND_DOWN)
