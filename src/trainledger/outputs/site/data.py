"""What the site shows, computed by the functions the CLI uses, so each number equals the CLI's.

Allocations are read once, summed in the warehouse by every set of dimensions a page shows
(``realize.cost_sets``: GROUPING SETS, each set the sums ``report --by`` those dimensions prints), so
Python holds aggregates only, however large the month. Post-mortems are ``reconcile``'s (all experiments
reconciled at once), cost-benefit is ``report --with-metrics``'s, budgets are ``budgets``'s, tag coverage
is ``labels``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

import polars as pl

from trainledger.core import providers
from trainledger.core.config import Config
from trainledger.core.config_spend import ReservationConfig
from trainledger.core.frames import MONEY as MONEY_TYPE
from trainledger.core.frames import rows_frame
from trainledger.core.providers import CLOUD
from trainledger.reports import benefit, budgets, compare, coverage, realize, reconcile
from trainledger.reports.budgets import BudgetStatus, ShareStatus
from trainledger.reports.reconciliation import Reconciliation
from trainledger.warehouse.connection import Connection, run

MONEY = realize.MONEY
# Every table of the site is one of these sets (+ currency): the overview's per period, the projects',
# the waste page's (by week from Monday, UTC), the ids of experiments known from allocations and the
# methods page's cost per experiment and phase, and each experiment's realized cost (its post-mortem).
SETS: list[realize.Set] = [
    ("billing_period",),
    ("billing_period", "project"),
    ("billing_period", "method"),
    ("billing_period", "cost_category"),
    ("billing_period", "rule"),
    ("billing_period", "provider"),
    ("billing_period", "day"),
    ("project",),
    ("project", "phase", "cost_category"),
    ("project", "waste"),
    ("waste", "week"),
    ("waste", "project", "experiment_id"),
    ("experiment_id",),
    ("experiment_id", "method", "phase"),
    ("experiment_id", "phase", "cost_category", "provider"),
]
# Allocation rules -> the four ways a cost is held: charged to work, idle capacity, shared, or nobody's.
HELD = {"idle": "idle", "shared": "shared", "unattributed": "unattributed"}
WASTE = ("idle", "failed", "rerun", "unused-commitment")
Row = dict[str, Any]


@dataclass
class Cube:
    """Allocations summed by each set of SETS and currency, in the warehouse."""

    sets: dict[frozenset[str], list[Row]]
    _index: dict[tuple[frozenset[str], tuple[str, ...]], dict[tuple[Any, ...], list[Row]]] = field(
        default_factory=dict
    )

    def rollup(self, columns: list[str], **where: str | None) -> list[Row]:
        """Sums by ``columns`` + currency over the rows matching ``where``, ordered as ``report`` orders
        (ascending, empty last); money as Decimal. ``columns`` + ``where`` must be one of SETS."""
        named = (frozenset([*columns, *where]), tuple(where))
        if named not in self._index:  # a set's rows by the values of ``where``'s columns, made once
            index: dict[tuple[Any, ...], list[Row]] = {}
            for r in self.sets[named[0]]:
                index.setdefault(tuple(r[c] for c in where), []).append(r)
            self._index[named] = index
        keys = [*columns, "currency"]
        found = self._index[named].get(tuple(where.values()), [])
        kept = [{k: r[k] for k in (*keys, *MONEY)} for r in found]
        return sorted(kept, key=lambda r: [(r[k] is None, r[k] or "") for k in keys])

    def cells(self, columns: list[str]) -> list[Row]:
        """The rows of the set of ``columns`` as the warehouse gave them, in no order and not copied: for
        sums whose order does not matter (tens of thousands of rows in a large month)."""
        return self.sets[frozenset(columns)]


def read_cube(con: Connection) -> Cube:
    return Cube({frozenset(s): rows for s, rows in realize.cost_sets(con, SETS).items()})


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

    rows: list[Reconciliation]
    total: int


def experiments(
    con: Connection, cube: Cube, limit: int | None, reservations: Sequence[ReservationConfig] = ()
) -> Experiments:
    logged = [exp_id for exp_id, _ in run(con, "site/experiments").fetchall()]
    seen = {r["experiment_id"] for r in cube.cells(["experiment_id"])} - {None}
    ids = logged + sorted(seen - set(logged))
    chosen = ids if limit is None else ids[:limit]
    return Experiments(reconcile.reconcile_many(con, chosen, reservations, billed(cube)), len(ids))


def billed(cube: Cube) -> reconcile.Billed:
    """What reconciling reads from the allocations, from the cube for every experiment: the same exact
    sums, without another scan of the allocations."""
    by_provider = cube.cells(["experiment_id", "phase", "cost_category", "provider"])
    return reconcile.Billed(
        realized(by_provider),
        list({(r["experiment_id"], r["provider"]) for r in by_provider if r["provider"] != "manual"}),
        [
            (r["experiment_id"], r["currency"], r["effective_cost"])
            for r in cube.cells(["experiment_id"])
            if r["experiment_id"] is not None
        ],
    )


def realized(by_provider: list[Row]) -> pl.DataFrame:
    """``report/reconcile_realized``'s frame (``compare.REALIZED``) from the cube's set by experiment,
    phase, category and provider. No phase reads 'unknown'; spend is the provider table's ('llm_api' for a
    model API's bill, else 'cloud'); cloud compute is compute neither from an off-cloud ledger (provider
    manual) nor from a model API, null where there is none."""
    columns = ["experiment_id", "phase", "cost_category", "provider", "currency", "effective_cost"]
    cells = rows_frame(
        ([r[c] for c in columns] for r in by_provider if r["experiment_id"] is not None),
        {**dict.fromkeys(columns[:-1], pl.String), "effective_cost": MONEY_TYPE},
    )
    spends = {p: providers.spend_of(p) for p in cells["provider"].unique().to_list()}
    spend = pl.col("provider").replace_strict(spends, return_dtype=pl.String)
    cloud = (
        (pl.col("cost_category") == "compute") & (pl.col("spend") == CLOUD) & (pl.col("provider") != "manual")
    )
    return (
        cells.with_columns(pl.col("phase").fill_null("unknown"), spend.alias("spend"))
        .group_by("experiment_id", "phase", "cost_category", "spend", "currency", maintain_order=True)
        .agg(
            pl.col("effective_cost").sum().alias("realized"),
            pl.when(cloud.any()).then(pl.col("effective_cost").filter(cloud).sum()).alias("cloud_compute"),
        )
        .rename({"cost_category": "category"})
        .select(list(compare.REALIZED))
    )


@dataclass
class ProjectPage:
    name: str
    phases: list[Row]
    waste: list[Row]
    monthly: list[Row]


def project(cube: Cube, name: str) -> ProjectPage:
    return ProjectPage(
        name,
        cube.rollup(["phase", "cost_category"], project=name),
        cube.rollup(["waste"], project=name),
        cube.rollup(["billing_period"], project=name),
    )


@dataclass
class WastePage:
    by_project: list[Row]
    by_week: list[Row]
    offenders: list[Row]


def waste_page(cube: Cube, top: int = 10) -> WastePage:
    wasted = [r for r in cube.rollup(["waste", "project"]) if r["waste"] in WASTE]
    by_week = [r for r in cube.rollup(["week", "waste"]) if r["waste"] in WASTE]
    offenders = [r for r in cube.rollup(["waste", "project", "experiment_id"]) if r["waste"] in WASTE]
    offenders.sort(key=lambda r: -r["effective_cost"])
    return WastePage(wasted, by_week, offenders[:top])


def methods(con: Connection, cube: Cube) -> list[benefit.Benefit]:
    return benefit.cost_benefit(con, sums=cube.rollup(["experiment_id", "method", "phase"]))


def labels(con: Connection) -> coverage.Coverage:
    return coverage.coverage(con, None)
