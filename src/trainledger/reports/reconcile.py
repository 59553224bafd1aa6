"""Post-mortem of one experiment: estimated vs realized by phase x category, waste, and completeness."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import polars as pl

from trainledger.attribution import waste
from trainledger.attribution.labels import canonical_value
from trainledger.core.config import PHASE_ORDER
from trainledger.core.money import fmt
from trainledger.reports import realize
from trainledger.warehouse.connection import Connection, run


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
    metrics: dict[str, Any] = field(
        default_factory=dict
    )  # the log's metrics ({target, general}: before/after)

    @property
    def estimated_total(self) -> Decimal:
        return sum((r.estimated or Decimal(0) for r in self.rows), Decimal(0))

    @property
    def realized_total(self) -> Decimal:
        return sum((r.realized for r in self.rows), Decimal(0))

    @property
    def eval_share(self) -> Decimal | None:
        """Evaluation's share of the realized cost (teams commonly see 20-40%)."""
        total = self.realized_total
        evaluation = sum((r.realized for r in self.rows if r.phase == "eval"), Decimal(0))
        return evaluation / total if total > 0 else None

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
    row = run(con, "report/reconcile_experiment", {"id": key}).fetchone()
    if row is None:  # known from a tag only (callers check the id first: reports/experiments.require)
        row = (key, None, None, None, None, None, "{}", "{}")
    exp_id, project, method, status, started, ended, estimate_json, metrics_json = row
    estimate = json.loads(estimate_json or "{}")
    estimates = run(con, "report/reconcile_estimates", {"id": exp_id}).fetchall()
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

    complete_through = billing_complete_through(con, exp_id)
    provisional = ended is None or complete_through is None or complete_through < ended

    hidden = waste.experiment_waste(con, exp_id, currency)
    bases = {b for *_, b in estimates}
    assumptions: dict[str, Any] = {
        "estimate_source": _estimate_source(bases),
        "realized_measure": "EffectiveCost (amortised, net of credits)",
        "billing_complete_through": "end of the latest usage hour billed by the experiment's providers",
    }
    assumptions.update(compute_assumptions(con, exp_id, currency, rows, complete_through))
    if status in waste.FAILED_STATUSES and isinstance(assumptions.get("compute"), list):
        for item in assumptions["compute"]:
            item["implied_mfu"] = None
        assumptions["implied_mfu"] = (
            f"not computed: the run {status}, the estimator's FLOPs are the planned work"
        )
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
        metrics=json.loads(metrics_json or "{}"),
    )


def _row_order(key: tuple[str, str]) -> tuple[int, str, str]:
    return (PHASE_ORDER.get(key[0], 9), key[0], key[1])


def _estimate_source(bases: set[str]) -> str:
    if not bases:
        return "none"
    if bases == {"log"}:
        return "experiment log"
    if bases == {"estimator"}:
        return "estimator (the log gives no estimate)"
    return "experiment log and estimator"


def billing_complete_through(con: Connection, experiment_id: str) -> datetime | None:
    """The earliest, over the providers the experiment ran on, of how far each one's bill is complete."""
    complete = dict(run(con, "report/billing_complete_through").fetchall())
    used = {p for (p,) in run(con, "report/reconcile_providers", {"id": experiment_id}).fetchall()}
    relevant = [complete[p] for p in sorted(used) if p in complete] or list(complete.values())
    if used and any(p not in complete for p in used):
        return None
    return min(relevant) if relevant else None


def compute_assumptions(
    con: Connection, experiment_id: str, currency: str, rows: list[Row], complete_through: datetime | None
) -> dict[str, Any]:
    """The estimator's assumptions plus, per phase, implied realized GPU hours and MFU.

    Implied GPU hours = realized compute cost / the price per GPU hour the estimator used (an on-demand
    price: Savings Plans and committed-use discounts make it read low); implied MFU = the estimator's
    FLOPs / (implied GPU hours x peak). Logged GPU hours come from the experiment log's windows x GPUs.
    """
    found = run(con, "report/reconcile_estimator_result", {"id": experiment_id}).fetchone()
    logged = _logged_gpu_hours(con, experiment_id, complete_through)
    if found is None:
        out: dict[str, Any] = {"estimator": "not run (no params in the log)"}
        if logged:
            out["compute"] = [{"phase": p, "logged_gpu_hours": _q(h, "0.01")} for p, h in logged.items()]
        return out
    detail = json.loads(found[0])
    facts = {k: v["value"] for k, v in detail["assumptions"].items()}
    price = Decimal(facts["price_per_gpu_hour"]) if "price_per_gpu_hour" in facts else None
    peak = Decimal(facts["peak_tflops"]) if "peak_tflops" in facts else None
    same_money = price is not None and detail["currency"] == currency
    flops: dict[str, int] = {}
    est_hours: dict[str, Decimal] = {}
    for p in detail["phases"]:
        if p["category"] == "compute":
            if p["flops"] is not None:
                flops[p["phase"]] = p["flops"]
            if p["gpu_hours"] is not None:
                est_hours[p["phase"]] = Decimal(p["gpu_hours"])
    # Cloud compute only: an off-cloud ledger's compute (an LLM-judge API bill) bought no GPU hours.
    realized_compute: dict[str, Decimal] = {
        phase: Decimal(cost)
        for phase, cost in run(
            con, "report/reconcile_realized_compute", {"id": experiment_id, "currency": currency}
        ).fetchall()
    }
    phases = sorted(set(flops) | set(realized_compute) | set(logged), key=lambda p: _row_order((p, "")))
    compute = []
    for phase in phases:
        cost = realized_compute.get(phase)
        implied = cost / price if (cost is not None and same_money and price) else None
        mfu = (
            Decimal(flops[phase]) / (implied * 3600 * peak * Decimal(10) ** 12)
            if implied and peak and phase in flops
            else None
        )
        compute.append(
            {
                "phase": phase,
                "flops": flops.get(phase),
                "estimated_gpu_hours": _q(est_hours.get(phase), "0.01"),
                "realized_compute": None if cost is None else fmt(cost),
                "implied_gpu_hours": _q(implied, "0.01"),
                "logged_gpu_hours": _q(logged.get(phase), "0.01"),
                "implied_mfu": _q(mfu, "0.0001"),
            }
        )
    out = {
        "estimator": {
            k: {"value": v["value"], "source": v["source"]} for k, v in detail["assumptions"].items()
        },
        "estimator_missing": detail["missing"],
        **({"estimator_warnings": detail["warnings"]} if detail.get("warnings") else {}),
        "estimator_total": detail["total"],
        "estimator_currency": detail["currency"],
        "compute": compute,
        "implied_gpu_hours": "realized compute cost / price_per_gpu_hour (on-demand: discounts make it read low)",
        "implied_mfu": "estimator FLOPs / (implied GPU hours x 3600 x peak FLOP/s)",
    }
    if price is not None and not same_money:
        out["implied_gpu_hours"] = (
            f"not computed: estimator prices in {detail['currency']}, realized in {currency}"
        )
    return out


def _q(value: Decimal | None, places: str) -> str | None:
    return None if value is None else f"{value.quantize(Decimal(places), ROUND_HALF_EVEN):f}"


def _logged_gpu_hours(con: Connection, experiment_id: str, until: datetime | None) -> dict[str, Decimal]:
    """GPU hours by phase from the log's windows; an open window counts up to ``until``."""
    hours: dict[str, Decimal] = {}
    for phase, gpus, start, end in run(con, "report/reconcile_gpu_windows", {"id": experiment_id}).fetchall():
        stop = min(end, until) if until else end
        if stop <= start:
            continue
        seconds = Decimal(int((stop - start).total_seconds()))
        hours[phase] = hours.get(phase, Decimal(0)) + seconds * gpus / 3600
    return hours
