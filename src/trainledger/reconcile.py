"""Post-mortem of one experiment: estimated vs realized by phase x category, waste, and completeness."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import polars as pl

from trainledger import realize, waste
from trainledger.errors import NotFound
from trainledger.labels import canonical_value
from trainledger.money import fmt
from trainledger.warehouse import Connection


@dataclass
class Row:
    phase: str
    category: str
    estimated: Decimal | None
    realized: Decimal

    @property
    def variance(self) -> Decimal | None:
        return None if self.estimated is None else self.realized - self.estimated

    @property
    def variance_pct(self) -> Decimal | None:
        if self.estimated in (None, Decimal(0)) or self.variance is None:
            return None
        return (self.variance / self.estimated * 100).quantize(Decimal("0.01"), ROUND_HALF_EVEN)


@dataclass
class Reconciliation:
    experiment_id: str
    project: str | None
    method: str | None
    status: str | None
    started_at: datetime | None
    ended_at: datetime | None
    currency: str
    billing_complete_through: datetime | None
    provisional: bool
    rows: list[Row]
    idle: Decimal
    failed: Decimal
    assumptions: dict[str, Any] = field(default_factory=dict)
    other_currencies: list[str] = field(default_factory=list)

    @property
    def estimated_total(self) -> Decimal:
        return sum((r.estimated or Decimal(0) for r in self.rows), Decimal(0))

    @property
    def realized_total(self) -> Decimal:
        return sum((r.realized for r in self.rows), Decimal(0))

    def to_json(self) -> dict[str, Any]:
        """The SPEC §7 shape; money as decimal strings."""

        def money(value: Decimal | None) -> str | None:
            return None if value is None else fmt(value)

        return {
            "experiment_id": self.experiment_id,
            "currency": self.currency,
            "billing_complete_through": _iso(self.billing_complete_through),
            "provisional": self.provisional,
            "rows": [
                {
                    "phase": r.phase,
                    "category": r.category,
                    "estimated": money(r.estimated),
                    "realized": money(r.realized),
                    "variance": money(r.variance),
                    "variance_pct": None if r.variance_pct is None else f"{r.variance_pct:f}",
                }
                for r in self.rows
            ],
            "totals": {
                "estimated": money(self.estimated_total),
                "realized": money(self.realized_total),
                "variance": money(self.realized_total - self.estimated_total),
            },
            "waste": {"idle": money(self.idle), "failed": money(self.failed)},
            "assumptions": self.assumptions,
        }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.strftime("%Y-%m-%dT%H:%M:%SZ")


def reconcile(con: Connection, experiment_id: str) -> Reconciliation:
    key = canonical_value(experiment_id)
    row = con.execute(
        "SELECT experiment_id, project, method, status, started_at, ended_at, estimate FROM experiments "
        "WHERE experiment_id = $id",
        {"id": key},
    ).fetchone()
    if row is None:
        realized_any = con.execute(
            "SELECT count(*) FROM allocations WHERE experiment_id = $id", {"id": key}
        ).fetchone()
        if not realized_any or not realized_any[0]:
            raise NotFound(f"experiment {experiment_id!r} is not in the experiment log nor in any allocation")
        row = (key, None, None, None, None, None, "{}")
    exp_id, project, method, status, started, ended, estimate_json = row
    estimate = json.loads(estimate_json or "{}")
    estimates = con.execute(
        "SELECT phase, coalesce(category, CASE WHEN phase = 'data' THEN 'data' ELSE 'compute' END), currency, "
        "sum(amount), any_value(basis) FROM estimates WHERE experiment_id = $id GROUP BY ALL",
        {"id": exp_id},
    ).fetchall()
    currency = estimates[0][2] if estimates else str(estimate.get("currency", "")).upper() or None
    frame = realize.cost_frame(con, ["phase", "cost_category"], where={"experiment_id": exp_id})
    currencies = sorted(set(frame["currency"].to_list()))
    if currency is None:
        currency = currencies[0] if currencies else "USD"
    mine = frame.filter(pl.col("currency") == currency)
    realized = {
        (r["phase"] or "unknown", r["cost_category"]): Decimal(r["effective_cost"])
        for r in mine.iter_rows(named=True)
    }
    estimated = {(p, c): Decimal(a) for p, c, cur, a, _ in estimates if cur == currency}
    keys = sorted(set(realized) | set(estimated), key=_row_order)
    rows = [Row(p, c, estimated.get((p, c)), realized.get((p, c), Decimal(0))) for p, c in keys]

    complete = con.execute(
        "SELECT max(charge_period_end) FROM charges WHERE provider IN "
        "(SELECT DISTINCT coalesce(provider, 'aws') FROM experiment_resources WHERE experiment_id = $id)",
        {"id": exp_id},
    ).fetchone()
    complete_through = complete[0] if complete else None
    if complete_through is None:
        complete_through = (con.execute("SELECT max(charge_period_end) FROM charges").fetchone() or (None,))[
            0
        ]
    provisional = ended is None or complete_through is None or complete_through < ended

    hidden = waste.experiment_waste(con, exp_id, currency)
    bases = {b for *_, b in estimates}
    assumptions: dict[str, Any] = {
        "estimate_source": "experiment log" if bases <= {"log"} else "estimator",
        "realized_measure": "EffectiveCost (amortised, net of credits)",
    }
    return Reconciliation(
        experiment_id=exp_id,
        project=project,
        method=method,
        status=status,
        started_at=started,
        ended_at=ended,
        currency=currency,
        billing_complete_through=complete_through,
        provisional=provisional,
        rows=rows,
        idle=hidden["idle"],
        failed=hidden["failed"],
        assumptions=assumptions,
        other_currencies=[c for c in currencies if c != currency],
    )


PHASE_ORDER = {"data": 0, "train": 1, "rollout": 2, "eval": 3}


def _row_order(key: tuple[str, str]) -> tuple[int, str, str]:
    return (PHASE_ORDER.get(key[0], 9), key[0], key[1])
