"""Post-mortem of one experiment: estimated vs realized by phase x category, waste, and completeness."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.attribution import waste
from trainledger.core.config_spend import ReservationConfig
from trainledger.core.labels import canonical_value
from trainledger.core.money import fmt
from trainledger.core.providers import CLOUD, LLM_API
from trainledger.core.timestamps import iso_utc as _iso
from trainledger.core.vocabulary import phase_category_order
from trainledger.experiments.log import ExperimentHeader
from trainledger.warehouse.connection import Connection, run


@dataclass
class Row:
    phase: str
    category: str
    estimated: Decimal | None
    realized: Decimal
    spend: str = CLOUD  # LLM_API: a model API's bill (judge calls, synthetic data) and its estimate

    @property
    def label(self) -> str:
        """The category as people read it: an LLM API's line says so, beside the GPU line of its phase."""
        return f"{self.category} (LLM API)" if self.spend == LLM_API else self.category

    @property
    def variance(self) -> Decimal | None:
        return None if self.estimated is None else self.realized - self.estimated

    @property
    def variance_pct(self) -> Decimal | None:
        if self.estimated in (None, Decimal(0)) or self.variance is None:
            return None
        return (self.variance / self.estimated * 100).quantize(Decimal("0.01"), ROUND_HALF_EVEN)


@dataclass
class Reconciliation(ExperimentHeader):
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
    reservations: list[waste.ReservedUse] = field(default_factory=list)  # the [[reservations]] it used

    @property
    def unused_commitment(self) -> Decimal:
        """Reserved capacity nobody used while the run ran, on the reservations it used."""
        return sum((u.during_run for u in self.reservations), Decimal(0))

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
                    "spend": r.spend,
                }
                for r in self.rows
            ],
            "totals": {
                "estimated": money(self.estimated_total),
                "realized": money(self.realized_total),
                "variance": money(self.realized_total - self.estimated_total),
            },
            "waste": {
                "idle": money(self.idle),
                "failed": money(self.failed),
                "unused_commitment": money(self.unused_commitment),
            },
            "reservations": [
                {
                    "id": u.id,
                    "project": u.project,
                    "start": _iso(u.start),
                    "end": _iso(u.end),
                    "unused_during_run": money(u.during_run),
                    "unused_in_window": money(u.in_window),
                }
                for u in self.reservations
            ],
            "assumptions": self.assumptions,
        }


def reconcile(
    con: Connection, experiment_id: str, reservations: Sequence[ReservationConfig] = ()
) -> Reconciliation:
    return reconcile_many(con, [experiment_id], reservations)[0]


@dataclass
class Billed:
    """What reconciling reads from the allocations, for a caller that has summed them already (the site,
    its cube): ``realized``, the rows of ``report/reconcile_realized``; ``providers``, the (experiment,
    provider) pairs of ``report/reconcile_billed_providers``; ``cost``, (experiment, currency, effective
    cost) of every experiment, of which a failed run's is its waste (``report/waste_failed_cost``)."""

    realized: list[tuple[Any, ...]]
    providers: list[tuple[Any, ...]]
    cost: list[tuple[Any, ...]]


def reconcile_many(
    con: Connection,
    experiment_ids: list[str],
    reservations: Sequence[ReservationConfig] = (),
    billed: Billed | None = None,
) -> list[Reconciliation]:
    """``reconcile`` of each id, in order, from one read per table for all of them (the allocations
    grouped by experiment x phase x category x currency, the estimates, the log's windows): the site
    reconciles every experiment, tens of thousands in a large month. ``reservations``: the config's
    ``[[reservations]]``, for the unused reserved capacity of those a run used. ``billed``: the
    allocations' part when the caller has summed it already; else read here."""
    keys = list(dict.fromkeys(canonical_value(i) for i in experiment_ids))
    ids = {"ids": keys}
    logged = {r[0]: r for r in run(con, "report/reconcile_experiments", ids).fetchall()}
    estimates = _by_experiment(run(con, "report/reconcile_estimates", ids).fetchall())
    providers = failed = None  # without ``billed``, read by billing_complete_through_many and waste
    if billed is None:
        realized_rows = run(con, "report/reconcile_realized", ids).fetchall()
    else:
        wanted = set(keys)
        realized_rows = [r for r in billed.realized if r[0] in wanted]
        providers = [r for r in billed.providers if r[0] in wanted]
        failed = [r for r in billed.cost if r[0] in logged and logged[r[0]][3] in waste.FAILED_STATUSES]
    realized = _by_experiment(realized_rows)
    windows = _by_experiment(run(con, "report/reconcile_gpu_windows", ids).fetchall())
    results = dict(run(con, "report/reconcile_estimator_results", ids).fetchall())
    rate_card = {(e, cur): Decimal(v) for e, cur, v in run(con, "report/reconcile_rate_card", ids).fetchall()}
    complete = billing_complete_through_many(con, keys, providers)
    currencies = {k: _currency(logged.get(k), estimates.get(k, []), realized.get(k, [])) for k in keys}
    hidden = waste.experiments_waste(con, currencies, failed)
    reserved = waste.reserved_capacity(con, currencies, reservations)
    built = {
        k: _reconciliation(
            logged.get(k) or (k, None, None, None, None, None, "{}", "{}"),  # known from a tag only
            currencies[k],
            estimates.get(k, []),
            realized.get(k, []),
            complete[k],
            hidden[k],
            results.get(k),
            windows.get(k, []),
            reserved[k],
        )
        for k in keys
    }
    for k, r in built.items():
        if (k, r.currency) in rate_card:
            r.assumptions["priced_by_rate_card"] = (
                f"{fmt(rate_card[k, r.currency])} {r.currency} of the realized cost is usage priced by "
                "trainledger's rate card ([[rates]]), not a provider's invoice"
            )
    return [built[canonical_value(i)] for i in experiment_ids]


def _by_experiment(found: list[tuple[Any, ...]]) -> dict[str, list[tuple[Any, ...]]]:
    """Rows whose first column is the experiment id, grouped by it (the id dropped), in order."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for exp_id, *rest in found:
        out.setdefault(exp_id, []).append(tuple(rest))
    return out


def _currency(
    logged: tuple[Any, ...] | None, estimates: list[tuple[Any, ...]], realized: list[tuple[Any, ...]]
) -> str:
    """The estimates' first currency, else the log's estimate's, else the first realized one, else USD."""
    if estimates:
        return str(estimates[0][3])
    estimate = json.loads((logged[6] if logged else None) or "{}")
    return str(estimate.get("currency", "")).upper() or min((r[3] for r in realized), default="USD")


def _reconciliation(
    logged: tuple[Any, ...],
    currency: str,
    estimates: list[tuple[Any, ...]],
    realized_rows: list[tuple[Any, ...]],
    complete_through: datetime | None,
    hidden: dict[str, Decimal],
    estimator_detail: str | None,
    windows: list[tuple[Any, ...]],
    reserved: list[waste.ReservedUse],
) -> Reconciliation:
    exp_id, project, method, status, started, ended, _, metrics_json = logged
    realized = {(p, c, s): Decimal(cost) for p, c, s, cur, cost, _ in realized_rows if cur == currency}
    estimated = {(p, c, s): Decimal(a) for p, c, s, cur, a, _ in estimates if cur == currency}
    keys = sorted(
        set(realized) | set(estimated), key=lambda k: (phase_category_order(k[:2]), k[2] == LLM_API)
    )
    rows = [Row(p, c, estimated.get((p, c, s)), realized.get((p, c, s), Decimal(0)), s) for p, c, s in keys]
    provisional = ended is None or complete_through is None or complete_through < ended
    bases = {b for *_, b in estimates}
    assumptions: dict[str, Any] = {
        "estimate_source": _estimate_source(bases),
        "realized_measure": "EffectiveCost (amortised, net of credits)",
        "billing_complete_through": "end of the latest usage hour billed by the experiment's providers",
    }
    cloud_compute: dict[str, Decimal] = {}
    for p, _, _, cur, _, cc in realized_rows:
        if cur == currency and cc is not None:
            cloud_compute[p] = cloud_compute.get(p, Decimal(0)) + Decimal(cc)
    logged_hours = _logged_gpu_hours(windows, complete_through)
    assumptions.update(compute_assumptions(estimator_detail, currency, cloud_compute, logged_hours))
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
        other_currencies=sorted({cur for _, _, _, cur, _, _ in realized_rows} - {currency}),
        metrics=json.loads(metrics_json or "{}"),
        reservations=reserved,
    )


def _estimate_source(bases: set[str]) -> str:
    if not bases:
        return "none"
    if bases == {"log"}:
        return "experiment log"
    if bases == {"estimator"}:
        return "estimator (the log gives no estimate)"
    return "experiment log and estimator"


def billing_complete_through_many(
    con: Connection, experiment_ids: list[str], billed_providers: list[tuple[Any, ...]] | None = None
) -> dict[str, datetime | None]:
    """Per experiment, the earliest, over the providers it ran on, of how far each one's bill is complete
    (None while a provider it ran on has delivered no usage). ``billed_providers``: the rows of
    ``report/reconcile_billed_providers`` when the caller has them already."""
    complete = dict(run(con, "report/billing_complete_through").fetchall())
    ids = {"ids": experiment_ids}
    if billed_providers is None:
        billed_providers = run(con, "report/reconcile_billed_providers", ids).fetchall()
    used: dict[str, set[str]] = {i: set() for i in experiment_ids}
    for exp_id, provider in [*run(con, "report/reconcile_providers", ids).fetchall(), *billed_providers]:
        used[exp_id].add(provider)
    out: dict[str, datetime | None] = {}
    for exp_id, providers in used.items():
        relevant = [complete[p] for p in sorted(providers) if p in complete] or list(complete.values())
        missing = any(p not in complete for p in providers)
        out[exp_id] = None if missing or not relevant else min(relevant)
    return out


def compute_assumptions(
    estimator_detail: str | None,
    currency: str,
    cloud_compute: dict[str, Decimal],
    logged: dict[str, Decimal],
) -> dict[str, Any]:
    """The estimator's assumptions (its result's JSON, None when it did not run) plus, per phase, implied
    realized GPU hours and MFU from the realized cloud compute and the logged GPU hours.

    Implied GPU hours = realized compute cost / the price per GPU hour the estimator used (an on-demand
    price: Savings Plans and committed-use discounts make it read low); implied MFU = the estimator's
    FLOPs / (implied GPU hours x peak). Logged GPU hours come from the experiment log's windows x GPUs.
    Cloud compute only: an off-cloud ledger's compute (an LLM-judge API bill) bought no GPU hours.
    """
    if estimator_detail is None:
        out: dict[str, Any] = {"estimator": "not run (no params in the log)"}
        if logged:
            out["compute"] = [
                {"phase": p, "logged_gpu_hours": _q(logged[p], "0.01")}
                for p in sorted(logged, key=lambda p: phase_category_order((p, "")))
            ]
        return out
    detail = json.loads(estimator_detail)
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
    phases = sorted(
        set(flops) | set(cloud_compute) | set(logged), key=lambda p: phase_category_order((p, ""))
    )
    compute = []
    for phase in phases:
        cost = cloud_compute.get(phase)
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


def _logged_gpu_hours(windows: list[tuple[Any, ...]], until: datetime | None) -> dict[str, Decimal]:
    """GPU hours by phase from the log's windows (phase, GPUs, start, end); an open window counts up to
    ``until``."""
    hours: dict[str, Decimal] = {}
    for phase, gpus, start, end in windows:
        stop = min(end, until) if until else end
        if stop <= start:
            continue
        seconds = Decimal(int((stop - start).total_seconds()))
        hours[phase] = hours.get(phase, Decimal(0)) + seconds * gpus / 3600
    return hours
