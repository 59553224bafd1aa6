"""What the site shows, computed by the functions the CLI uses, so each number equals the CLI's.

Allocations are read once, as ``report --by period,project,method,phase,category,rule,provider,waste,
experiment --granularity day`` (``realize.cost_frame``); every table is a roll-up of that frame in exact
Decimal, which is the sum the CLI's narrower ``--by`` computes. Post-mortems are ``reconcile``'s, cost-benefit
is ``report --with-metrics``'s, budgets are ``budgets``'s, tag coverage is ``labels``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import polars as pl

from trainledger.core.config import Config
from trainledger.reports import benefit, budgets, coverage, realize, reconcile
from trainledger.reports.budgets import BudgetStatus, ShareStatus
from trainledger.warehouse.connection import Connection, run

MONEY = realize.MONEY
CUBE = [
    "billing_period",
    "project",
    "method",
    "phase",
    "cost_category",
    "rule",
    "provider",
    "waste",
    "experiment_id",
]
# Allocation rules -> the four ways a cost is held: charged to work, idle capacity, shared, or nobody's.
HELD = {"idle": "idle", "shared": "shared", "unattributed": "unattributed"}
WASTE = ("idle", "failed", "rerun", "unused-commitment")
Row = dict[str, Any]


@dataclass
class Cube:
    """Allocations summed by every dimension the site shows, by UTC day and currency."""

    frame: pl.DataFrame

    def rollup(self, columns: list[str], **where: str | None) -> list[Row]:
        """Sums by ``columns`` + currency over the rows matching ``where``, ordered as ``report`` orders
        (ascending, empty last); money as Decimal."""
        frame = self.frame
        for column, value in where.items():
            frame = frame.filter(pl.col(column).is_null() if value is None else pl.col(column) == value)
        keys = [*columns, "currency"]
        grouped = frame.group_by(keys).agg(pl.col(m).sum() for m in MONEY)
        grouped = grouped.sort(keys, nulls_last=True)
        return [
            {k: (Decimal(v) if k in MONEY else v) for k, v in row.items()}
            for row in grouped.iter_rows(named=True)
        ]


def read_cube(con: Connection) -> Cube:
    return Cube(realize.cost_frame(con, CUBE, "day"))


def periods(cube: Cube) -> list[str]:
    return sorted({r["billing_period"] for r in cube.rollup(["billing_period"])})


def projects(cube: Cube) -> list[str]:
    return [p for p in dict.fromkeys(r["project"] for r in cube.rollup(["project"])) if p is not None]


@dataclass
class Overview:
    period: str
    totals: list[Row]
    by_project: list[Row]
    by_method: list[Row]
    by_category: list[Row]
    by_rule: list[Row]
    held: list[Row]
    daily: list[Row]
    monthly: list[Row]
    budgets: list[BudgetStatus]
    shares: list[ShareStatus]
    lagging: list[tuple[str, datetime | None]]
    period_end: datetime


def _period_end(period: str) -> datetime:
    year, month = (int(p) for p in period.split("-"))
    return datetime(year + month // 12, month % 12 + 1, 1)


def held(rows: list[Row]) -> list[Row]:
    """``--by rule`` rows summed into attributed / idle / shared / unattributed, per currency."""
    out: dict[tuple[str, str], Row] = {}
    for r in rows:
        key = (HELD.get(r["rule"], "attributed"), r["currency"])
        into = out.setdefault(key, {"held": key[0], "currency": key[1], **{m: Decimal(0) for m in MONEY}})
        for m in MONEY:
            into[m] += r[m]
    order = ["attributed", "idle", "shared", "unattributed"]
    return sorted(out.values(), key=lambda r: (order.index(r["held"]), r["currency"]))


def overview(con: Connection, config: Config, cube: Cube, period: str) -> Overview:
    complete = {p: t for p, t in run(con, "report/billing_complete_through").fetchall()}
    end = _period_end(period)
    providers = {r["provider"] for r in cube.rollup(["provider"], billing_period=period)} - {"manual", None}
    lagging = [(p, complete.get(p)) for p in sorted(providers) if (complete.get(p) or datetime.min) < end]
    by_rule = cube.rollup(["rule"], billing_period=period)
    return Overview(
        period=period,
        totals=cube.rollup([], billing_period=period),
        by_project=cube.rollup(["project"], billing_period=period),
        by_method=cube.rollup(["method"], billing_period=period),
        by_category=cube.rollup(["cost_category"], billing_period=period),
        by_rule=by_rule,
        held=held(by_rule),
        daily=cube.rollup(["day"], billing_period=period),
        monthly=cube.rollup(["billing_period"]),
        budgets=[s for s in budgets.status(con, config) if s.period == period],
        shares=[s for s in budgets.share_status(con, config) if s.period == period],
        lagging=lagging,
        period_end=end,
    )


@dataclass
class Experiments:
    """Reconciliations, newest first; ``total`` counts every experiment, ``rows`` may hold fewer."""

    rows: list[reconcile.Reconciliation]
    total: int


def experiments(con: Connection, cube: Cube, limit: int | None) -> Experiments:
    logged = [exp_id for exp_id, _ in run(con, "site/experiments").fetchall()]
    seen = {r["experiment_id"] for r in cube.rollup(["experiment_id"])} - {None}
    ids = logged + sorted(seen - set(logged))
    chosen = ids if limit is None else ids[:limit]
    return Experiments([reconcile.reconcile(con, exp_id) for exp_id in chosen], len(ids))


@dataclass
class ProjectPage:
    name: str
    phases: list[Row]
    waste: list[Row]
    monthly: list[Row]
    experiments: list[reconcile.Reconciliation] = field(default_factory=list)


def project(cube: Cube, name: str, found: Experiments) -> ProjectPage:
    return ProjectPage(
        name,
        cube.rollup(["phase", "cost_category"], project=name),
        cube.rollup(["waste"], project=name),
        cube.rollup(["billing_period"], project=name),
        [r for r in found.rows if r.project == name],
    )


@dataclass
class WastePage:
    by_project: list[Row]
    by_week: list[Row]
    offenders: list[Row]


def _week(day: str) -> str:
    start = date.fromisoformat(day)
    return (start - timedelta(days=start.weekday())).isoformat()


def waste_page(cube: Cube, top: int = 10) -> WastePage:
    wasted = [r for r in cube.rollup(["waste", "project"]) if r["waste"] in WASTE]
    weeks: dict[tuple[str, str, str], Row] = {}
    for r in cube.rollup(["waste", "day"]):
        if r["waste"] not in WASTE:
            continue
        key = (_week(r["day"]), r["waste"], r["currency"])
        into = weeks.setdefault(
            key, {"week": key[0], "waste": key[1], "currency": key[2], **{m: Decimal(0) for m in MONEY}}
        )
        for m in MONEY:
            into[m] += r[m]
    offenders = [r for r in cube.rollup(["waste", "project", "experiment_id"]) if r["waste"] in WASTE]
    offenders.sort(key=lambda r: -r["effective_cost"])
    by_week = sorted(weeks.values(), key=lambda r: (r["week"], r["waste"], r["currency"]))
    return WastePage(wasted, by_week, offenders[:top])


def methods(con: Connection) -> list[benefit.Benefit]:
    return benefit.cost_benefit(con)


def labels(con: Connection) -> coverage.Coverage:
    return coverage.coverage(con, None)
