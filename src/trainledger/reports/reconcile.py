"""Post-mortem of one experiment: estimated vs realized by phase x category, waste, and completeness; every
figure of the comparison comes from ``compare`` (polars), for one experiment or every one at once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import polars as pl

from trainledger.attribution import waste
from trainledger.core.config_spend import ReservationConfig
from trainledger.core.frames import frame, rows_frame, tuples, with_sign
from trainledger.core.labels import canonical_value
from trainledger.core.money import fmt
from trainledger.estimate import implied
from trainledger.reports import benefit, compare
from trainledger.reports.completeness import billing_complete_through_many
from trainledger.reports.reconciliation import Headline, Reconciliation, Row
from trainledger.warehouse.connection import Connection, arrow, run


def reconcile(
    con: Connection, experiment_id: str, reservations: Sequence[ReservationConfig] = ()
) -> Reconciliation:
    return reconcile_many(con, [experiment_id], reservations)[0]


@dataclass
class Billed:
    """What reconciling reads from the allocations, for a caller that has summed them already (the site,
    its cube): ``realized``, ``report/reconcile_realized``'s frame (``compare.REALIZED``); ``providers``,
    the (experiment, provider) pairs of ``report/reconcile_billed_providers``; ``cost``, (experiment,
    currency, effective cost) of every experiment, of which a failed run's is its waste
    (``report/waste_failed_cost``)."""

    realized: pl.DataFrame
    providers: list[tuple[Any, ...]]
    cost: list[tuple[Any, ...]]


def reconcile_many(
    con: Connection,
    experiment_ids: list[str],
    reservations: Sequence[ReservationConfig] = (),
    billed: Billed | None = None,
) -> list[Reconciliation]:
    """``reconcile`` of each id, in order, from one read per table for all of them (the allocations
    grouped by experiment x phase x category x currency, the estimates, the log's windows) and one
    comparison (``compare``): the site reconciles every experiment, tens of thousands in a large month.
    ``reservations``: the config's ``[[reservations]]``, for the unused reserved capacity of those a run
    used. ``billed``: the allocations' part when the caller has summed it already; else read here."""
    return compared(con, experiment_ids, reservations, billed).reconciliations


@dataclass
class Compared:
    """Reconciliations in the order asked, with the comparison's frames they were read from (the Python
    API hands these out): ``lines`` (``compare.lines``) and ``summaries`` (``compare.summaries``)."""

    reconciliations: list[Reconciliation]
    lines: pl.DataFrame
    summaries: pl.DataFrame


def compared(
    con: Connection,
    experiment_ids: list[str],
    reservations: Sequence[ReservationConfig] = (),
    billed: Billed | None = None,
) -> Compared:
    """``reconcile_many``'s reconciliations and the frames they come from."""
    keys = list(dict.fromkeys(canonical_value(i) for i in experiment_ids))
    ids = {"ids": keys}
    logged = {r[0]: r for r in run(con, "report/reconcile_experiments", ids).fetchall()}
    estimates = frame(arrow(con, "report/reconcile_estimates", ids), compare.ESTIMATES)
    providers = failed = None  # without ``billed``, read by billing_complete_through_many and waste
    if billed is None:
        realized = frame(arrow(con, "report/reconcile_realized", ids), compare.REALIZED)
    else:
        wanted = set(keys)
        realized = billed.realized.filter(pl.col("experiment_id").is_in(keys))
        providers = [r for r in billed.providers if r[0] in wanted]
        failed = [r for r in billed.cost if r[0] in logged and logged[r[0]][3] in waste.FAILED_STATUSES]
    windows = _by_experiment(run(con, "report/reconcile_gpu_windows", ids).fetchall())
    results = dict(run(con, "report/reconcile_estimator_results", ids).fetchall())
    rate_card = {(e, cur): Decimal(v) for e, cur, v in run(con, "report/reconcile_rate_card", ids).fetchall()}
    complete = billing_complete_through_many(con, keys, providers)
    currencies = _currencies(keys, logged, estimates, realized)
    hidden = waste.experiments_waste(con, currencies, failed)
    reserved = waste.reserved_capacity(con, currencies, reservations)
    gains = {k: _gains(logged.get(k)) for k in keys}
    unused = {k: sum((u.during_run for u in reserved[k]), Decimal(0)) for k in keys}
    experiments = rows_frame(
        ((k, currencies[k], hidden[k]["idle"], hidden[k]["failed"], unused[k], *gains[k]) for k in keys),
        compare.EXPERIMENTS,
    )
    lines = compare.lines(estimates, realized, experiments)
    summaries = compare.summaries(lines, experiments)
    spent = realized.join(experiments.select("experiment_id", "currency"), on="experiment_id", how="inner")
    compute = _cloud_compute(spent)
    computed = implied.assumptions(
        {
            k: implied.Realized(
                results.get(k),
                currencies[k],
                compute.get(k, {}),
                _logged_gpu_hours(windows.get(k, []), complete[k]),
            )
            for k in keys
        }
    )
    others = _other_currencies(spent)
    bases = {e: set(b) for e, b in estimates.group_by("experiment_id").agg("basis").iter_rows()}
    built: dict[str, Reconciliation] = {}
    # Only the figures a reconciliation holds and the comparison added (each costs a conversion): waste's
    # parts are the ones given to it, of evaluation's cost only its sign is shown.
    shown = summaries.select(*SHOWN, (pl.col("eval_cost") < 0).alias("eval_negative"))
    names = shown.columns
    for values, rows in zip(tuples(shown), _rows_by_experiment(lines, keys), strict=True):
        summary = dict(zip(names, values, strict=True))
        k = summary["experiment_id"]
        summary.update(hidden[k], unused_commitment=unused[k])
        built[k] = _reconciliation(
            logged.get(k) or (k, None, None, None, None, None, "{}", "{}"),  # known from a tag only
            summary,
            rows,
            complete[k],
            bases.get(k, set()),
            gains[k],
            computed[k],
            others.get(k, []),
            reserved[k],
        )
    for k, r in built.items():
        if (k, r.currency) in rate_card:
            r.assumptions["priced_by_rate_card"] = (
                f"{fmt(rate_card[k, r.currency])} {r.currency} of the realized cost is usage priced by "
                "trainledger's rate card ([[rates]]), not a provider's invoice"
            )
    return Compared([built[canonical_value(i)] for i in experiment_ids], lines, summaries)


def _by_experiment(found: list[tuple[Any, ...]]) -> dict[str, list[tuple[Any, ...]]]:
    """Rows whose first column is the experiment id, grouped by it (the id dropped), in order."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for exp_id, *rest in found:
        out.setdefault(exp_id, []).append(tuple(rest))
    return out


def _gains(logged: tuple[Any, ...] | None) -> tuple[Decimal | None, Decimal | None]:
    """The log's target and general metric gains, in points (``benefit.points``)."""
    metrics = json.loads((logged[7] if logged else None) or "{}")
    return benefit.points(metrics.get("target")), benefit.points(metrics.get("general"))


def _currencies(
    keys: list[str], logged: dict[str, tuple[Any, ...]], estimates: pl.DataFrame, realized: pl.DataFrame
) -> dict[str, str]:
    """Per experiment, its estimates' first currency, else its log's estimate's, else its first realized
    one, else USD."""
    first = []
    for found in (estimates, realized):
        least = found.group_by("experiment_id").agg(pl.col("currency").min())
        first.append(dict(zip(least["experiment_id"].to_list(), least["currency"].to_list(), strict=True)))
    out = {}
    for k in keys:
        if k in first[0]:
            out[k] = first[0][k]
            continue
        estimate = json.loads((logged[k][6] if k in logged else None) or "{}")
        out[k] = str(estimate.get("currency", "")).upper() or first[1].get(k) or "USD"
    return out


def _cloud_compute(spent: pl.DataFrame) -> dict[str, dict[str, Decimal]]:
    """Per experiment and phase, the realized cloud compute in the experiment's currency."""
    found = (
        spent.filter((pl.col("currency") == pl.col("currency_right")) & pl.col("cloud_compute").is_not_null())
        .group_by("experiment_id", "phase", maintain_order=True)
        .agg(pl.col("cloud_compute").sum())
    )
    out: dict[str, dict[str, Decimal]] = {}
    for exp_id, phase, cost in found.iter_rows():
        out.setdefault(exp_id, {})[phase] = cost
    return out


def _other_currencies(spent: pl.DataFrame) -> dict[str, list[str]]:
    """Per experiment, the other currencies it was billed in (not converted, not in its figures)."""
    found = spent.filter(pl.col("currency") != pl.col("currency_right")).group_by("experiment_id")
    return {e: sorted(set(c)) for e, c in found.agg("currency").iter_rows()}


def _rows_by_experiment(lines: pl.DataFrame, keys: list[str]) -> list[list[Row]]:
    """The lines as Row objects, one list per experiment of ``keys`` (lines come sorted by experiment)."""
    grouped: dict[str, list[Row]] = {k: [] for k in keys}
    for exp_id, phase, category, spend, estimated, realized, variance, pct, over, _ in tuples(lines):
        if pct is not None and not pct:
            pct = with_sign(pct, (variance < 0) != (estimated < 0))
        grouped[exp_id].append(Row(phase, category, estimated, realized, variance, pct, spend, over))
    return [grouped[k] for k in keys]


SHOWN = [
    "experiment_id",
    "currency",
    "estimated_total",
    "realized",
    "variance_total",
    "variance",
    "estimated",
    "realized_estimated",
    "unestimated",
    "unestimated_lines",
    "headline_variance",
    "headline_pct",
    "over",
    "eval_share",
    "waste",
    "cost_per_point",
]


def _reconciliation(
    logged: tuple[Any, ...],
    summary: dict[str, Any],
    rows: list[Row],
    complete_through: datetime | None,
    bases: set[str],
    gains: tuple[Decimal | None, Decimal | None],
    computed: dict[str, Any],
    other_currencies: list[str],
    reserved: list[waste.ReservedUse],
) -> Reconciliation:
    exp_id, project, method, status, started, ended, _, _ = logged
    provisional = ended is None or complete_through is None or complete_through < ended
    assumptions: dict[str, Any] = {
        "estimate_source": _estimate_source(bases),
        "realized_measure": "EffectiveCost (amortised, net of credits)",
        "billing_complete_through": "end of the latest usage hour billed by the experiment's providers",
        **computed,
    }
    if status in waste.FAILED_STATUSES and isinstance(assumptions.get("compute"), list):
        for item in assumptions["compute"]:
            item["implied_mfu"] = None
        assumptions["implied_mfu"] = (
            f"not computed: the run {status}, the estimator's FLOPs are the planned work"
        )
    s = summary
    headline_negative = s["headline_variance"] is not None and (s["headline_variance"] < 0) != (
        s["estimated"] < 0
    )
    return Reconciliation(
        experiment_id=exp_id,
        project=project,
        method=method,
        status=status,
        started_at=started,
        ended_at=ended,
        currency=s["currency"],
        billing_complete_through=complete_through,
        provisional=provisional,
        rows=rows,
        idle=s["idle"],
        failed=s["failed"],
        unused_commitment=s["unused_commitment"],
        estimated_total=s["estimated_total"],
        realized_total=s["realized"],
        variance_total=s["variance_total"],
        variance=s["variance"],
        headline=Headline(
            s["estimated"],
            s["realized_estimated"],
            s["unestimated"],
            s["unestimated_lines"],
            s["headline_variance"],
            with_sign(s["headline_pct"], headline_negative),
            s["over"],
        ),
        eval_share=with_sign(s["eval_share"], s["eval_negative"]),
        hidden_cost=s["waste"],
        target_points=gains[0],
        general_points=gains[1],
        cost_per_point=with_sign(s["cost_per_point"], s["realized"] < 0),
        assumptions=assumptions,
        other_currencies=other_currencies,
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
