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
    eval_share: Decimal | None = None  # evaluation's share of the cost (teams commonly see 20-40%)

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


def cost_benefit(
    con: Connection,
    since: date | None = None,
    until: date | None = None,
    sums: list[dict[str, Any]] | None = None,
    where: dict[str, str] | None = None,
) -> list[Benefit]:
    """Method rows, each followed by its experiments, ordered by method then experiment, as
    ``compare.cost_benefit`` computes them. ``sums``: the allocations' effective cost by experiment_id,
    method, phase and currency when the caller has them already (the site's cube), instead of reading
    them again. ``where``: column = value filters on the allocations (``report --period``)."""
    from trainledger.core.frames import rows_frame, tuples, with_sign
    from trainledger.reports import compare

    gains = {}
    logged = []
    for exp_id, method, status, metrics in run(con, "report/benefit_experiments").fetchall():
        found = json.loads(metrics or "{}")
        gains[exp_id] = (points(found.get("target")), points(found.get("general")))
        logged.append((exp_id, method, status, *gains[exp_id]))
    columns = list(compare.SUMS)
    if sums is None:
        headers, found_rows = realize.cost_rows(
            con, ["experiment_id", "method", "phase"], None, since, until, where
        )
        at = [headers.index(c) for c in columns]
        cells = [tuple(row[i] for i in at) for row in found_rows]
    else:
        cells = [tuple(row[c] for c in columns) for row in sums]
    table = compare.cost_benefit(rows_frame(cells, compare.SUMS), rows_frame(logged, compare.LOGGED))
    out = []
    names = table.columns
    for values in tuples(table):
        r = dict(zip(names, values, strict=True))
        if r["level"] == "experiment":
            target, general = gains.get(r["experiment_id"], (None, None))
        else:
            target = with_sign(r["target_gain"], r["gained"] is not None and r["gained"] < 0)
            general = with_sign(r["general_change"], r["changed"] is not None and r["changed"] < 0)
        out.append(
            Benefit(
                r["level"],
                r["method"],
                r["experiment_id"],
                r["status"],
                r["experiments"],
                r["currency"],
                r["cost"],
                target,
                general,
                r["cost_per_point"],
                r["eval_cost"],
                with_sign(r["eval_share"], r["eval_cost"] < 0),
            )
        )
    return out
