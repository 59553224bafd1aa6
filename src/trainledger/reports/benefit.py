"""Method cost-benefit: what each experiment and method cost against the metric gain it bought.

Metrics come from the experiment log (``metrics.target`` and ``metrics.general``, each ``{before,
after}``). Gains are in points: one point is 0.01 of a metric on a 0-1 scale (both values within [0, 1]),
otherwise one unit (a 0-100 metric). An experiment's cost is its realized EffectiveCost. A method's row
sums the cost of all its experiments, failed ones and those without metrics included (that is what the
method cost); its gains are means over the experiments with metrics; its cost per point is that total
cost over the total points gained.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.core.money import CENT, fmt, to_decimal
from trainledger.reports import realize
from trainledger.warehouse.connection import Connection, run

NOTE = (
    "gains in points (1 point = 0.01 of a 0-1 metric); method rows: cost of all its experiments "
    "(failed included), mean gains over experiments with metrics, cost per point = total cost / total "
    "target points gained; eval share = evaluation phase cost / cost (teams commonly see 20-40%)"
)

NUMERIC = {
    "experiments",
    "cost",
    "target_gain_points",
    "general_change_points",
    "cost_per_point",
    "eval_share",
}


@dataclass
class Benefit:
    level: str  # "method" or "experiment"
    method: str | None
    experiment_id: str | None
    status: str | None
    experiments: int
    currency: str
    cost: Decimal
    target_gain: Decimal | None
    general_change: Decimal | None
    cost_per_point: Decimal | None
    eval_cost: Decimal = Decimal(0)

    @property
    def eval_share(self) -> Decimal | None:
        """Evaluation's share of the cost (teams commonly see 20-40%)."""
        return (
            (self.eval_cost / self.cost).quantize(Decimal("0.0001"), ROUND_HALF_EVEN)
            if self.cost > 0
            else None
        )

    def to_json(self) -> dict[str, Any]:
        def num(value: Decimal | None) -> str | None:
            return None if value is None else f"{value:f}"

        return {
            "level": self.level,
            "method": self.method,
            "experiment_id": self.experiment_id,
            "status": self.status,
            "experiments": self.experiments,
            "currency": self.currency,
            "cost": fmt(self.cost),
            "target_gain_points": num(self.target_gain),
            "general_change_points": num(self.general_change),
            "cost_per_point": None if self.cost_per_point is None else fmt(self.cost_per_point),
            "eval_share": None if self.eval_share is None else f"{self.eval_share:f}",
        }


def points(metric: Any) -> Decimal | None:
    """after - before, in points; None when the metric is absent or not two numbers."""
    if not isinstance(metric, dict) or metric.get("before") is None or metric.get("after") is None:
        return None
    try:
        before, after = to_decimal(metric["before"]), to_decimal(metric["after"])
    except ValueError:
        return None
    scale = 100 if 0 <= before <= 1 and 0 <= after <= 1 else 1
    return ((after - before) * scale).quantize(CENT, ROUND_HALF_EVEN)


def per_point(cost: Decimal, gained: Decimal | None) -> Decimal | None:
    if gained is None or gained <= 0:
        return None
    return (cost / gained).quantize(CENT, ROUND_HALF_EVEN)


def _mean(values: list[Decimal]) -> Decimal | None:
    return (sum(values, Decimal(0)) / len(values)).quantize(CENT, ROUND_HALF_EVEN) if values else None


def cost_benefit(
    con: Connection,
    since: date | None = None,
    until: date | None = None,
    sums: list[dict[str, Any]] | None = None,
    where: dict[str, str] | None = None,
) -> list[Benefit]:
    """Method rows, each followed by its experiments, ordered by method then experiment. ``sums``: the
    allocations' effective cost by experiment_id, method, phase and currency when the caller has them
    already (the site's cube), instead of reading them again. ``where``: column = value filters on the
    allocations (``report --period``)."""
    logged = {
        exp_id: (method, status, json.loads(metrics or "{}"))
        for exp_id, method, status, metrics in run(con, "report/benefit_experiments").fetchall()
    }
    if sums is None:
        headers, found = realize.cost_rows(
            con, ["experiment_id", "method", "phase"], None, since, until, where
        )
        sums = [dict(zip(headers, values, strict=True)) for values in found]
    costs: dict[tuple[str, str], Decimal] = {}
    evals: dict[tuple[str, str], Decimal] = {}
    methods: dict[str, str | None] = {}
    for row in sums:
        exp_id = row["experiment_id"]
        if exp_id is None:
            continue
        key = (exp_id, row["currency"])
        costs[key] = costs.get(key, Decimal(0)) + Decimal(row["effective_cost"])
        if row["phase"] == "eval":
            evals[key] = evals.get(key, Decimal(0)) + Decimal(row["effective_cost"])
        methods.setdefault(exp_id, row["method"])
    experiments: list[Benefit] = []
    for exp_id, currency in sorted(costs):
        method, status, metrics = logged.get(exp_id, (methods.get(exp_id), None, {}))
        cost = costs[(exp_id, currency)]
        target = points(metrics.get("target"))
        experiments.append(
            Benefit(
                "experiment",
                method,
                exp_id,
                status,
                1,
                currency,
                cost,
                target,
                points(metrics.get("general")),
                per_point(cost, target),
                evals.get((exp_id, currency), Decimal(0)),
            )
        )
    out: list[Benefit] = []
    groups = sorted({(e.method or "", e.currency) for e in experiments})
    for method, currency in groups:
        members = [e for e in experiments if (e.method or "", e.currency) == (method, currency)]
        gains = [e.target_gain for e in members if e.target_gain is not None]
        total = sum((e.cost for e in members), Decimal(0))
        out.append(
            Benefit(
                "method",
                method or None,
                None,
                None,
                len(members),
                currency,
                total,
                _mean(gains),
                _mean([e.general_change for e in members if e.general_change is not None]),
                per_point(total, sum(gains, Decimal(0)) if gains else None),
                sum((e.eval_cost for e in members), Decimal(0)),
            )
        )
        out.extend(members)
    return out
