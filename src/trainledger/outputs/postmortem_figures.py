"""What every format of a post-mortem shows, as text: the comparison's figures (``reports/compare.py``, read
from the reconciliation) formatted once, the header and state lines, the banner of a failed run, the
metric gains, the compute table and the estimator's assumptions. ``postmortem.py`` lays them out as
terminal text, markdown and HTML; ``esc`` arguments escape a value from the log or the bill for one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from trainledger.attribution import waste
from trainledger.core.money import CENT
from trainledger.outputs.postmortem_svg import Bar
from trainledger.outputs.tables import hours
from trainledger.reports.reconciliation import Reconciliation, Row

HEADERS = ["phase", "category", "estimated", "realized", "variance", "variance %"]
COMPUTE_HEADERS = ["phase", "FLOPs", "estimated GPU-h", "implied GPU-h", "logged GPU-h", "implied MFU"]
NO_ESTIMATE = "no estimate"


def money(value: Decimal | None) -> str:
    return "-" if value is None else f"{value.quantize(CENT):,f}"


def estimate(value: Decimal | None) -> str:
    return NO_ESTIMATE if value is None else money(value)


def percent(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


@lru_cache(maxsize=4096)  # the site writes a page per experiment; they share a few times
def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else "-"


def same(value: str) -> str:
    return value


def state(r: Reconciliation) -> str:
    if not r.provisional:
        return "complete"
    if r.ended_at is None:
        return "PROVISIONAL: the run has not ended"
    return f"PROVISIONAL: billing does not yet reach the run's end ({when(r.ended_at)})"


def failure(r: Reconciliation) -> str | None:
    """The banner of a failed or aborted run: what it cost bought nothing."""
    if r.status not in waste.FAILED_STATUSES:
        return None
    ended = f"at {when(r.ended_at)}" if r.ended_at else "(no end time logged)"
    return f"{r.status} {ended}; realized cost is waste"


def no_cost(r: Reconciliation) -> str | None:
    if any(row.realized for row in r.rows):
        return None
    return f"No cost billed to this experiment yet (billing complete through {when(r.billing_complete_through)})."


def header_lines(r: Reconciliation, esc: Callable[[str], str] = same) -> list[str]:
    source = r.assumptions.get("estimate_source", "none")
    estimate = (
        "no estimate (none in the log, no params for the estimator)"
        if source == "none"
        else f"estimate from {esc(str(source))}"
    )
    return [
        f"Experiment {esc(r.experiment_id)}  project {esc(r.project or '-')}  method {esc(r.method or '-')}  "
        f"status {esc(r.status or '-')}",
        f"Run {when(r.started_at)} -> {when(r.ended_at)}; billing complete through "
        f"{when(r.billing_complete_through)} ({state(r)})",
        f"Money in {esc(r.currency)}, EffectiveCost (amortised, net of credits); {estimate}",
    ]


# A line of the table with its figures formatted once: estimated, realized, variance, variance %.
Line = tuple[Row, str, str, str, str]


def lines(r: Reconciliation) -> list[Line]:
    out = []
    for x in r.rows:
        pct = x.variance_pct
        out.append(
            (
                x,
                estimate(x.estimated),
                money(x.realized),
                money(x.variance),
                "-" if pct is None else f"{pct:+.1f}%",
            )
        )
    return out


def rows(r: Reconciliation, shown: list[Line] | None = None) -> list[list[str]]:
    """The table: each line (``shown``: ``lines(r)`` when the caller has them), then the totals."""
    out = [[x.phase, x.label, *figures] for x, *figures in (lines(r) if shown is None else shown)]
    h = r.headline
    if h.estimated is not None and h.unestimated_lines:
        out.append(
            [
                "estimated lines",
                "",
                money(h.estimated),
                money(h.realized_estimated),
                money(h.variance),
                percent(h.pct),
            ]
        )
        out.append(["lines with no estimate", "", NO_ESTIMATE, money(h.unestimated), "-", "-"])
        out.append(["total", "", money(h.estimated), money(r.realized_total), "-", "-"])
    else:
        out.append(
            ["total", "", estimate(h.estimated), money(r.realized_total), money(h.variance), percent(h.pct)]
        )
    return out


def bars(shown: list[Line]) -> list[Bar]:
    """The chart's bars: the table's lines, with the table's own variance text."""
    return [
        Bar(
            x.phase,
            x.label,
            x.estimated,
            x.realized,
            NO_ESTIMATE if x.estimated is None else f"est {est}",
            f"real {real}" + ("" if pct == "-" else f" ({pct})"),
            x.over,
        )
        for x, est, real, _, pct in shown
    ]


def benefit_lines(r: Reconciliation) -> list[str]:
    """Metric gain and cost per point, when the log has metrics (points as in `report --with-metrics`)."""
    target, general = r.target_points, r.general_points
    if target is None and general is None:
        return []
    gains = [f"{name} {value:+.2f} points" for name, value in (("target", target), ("general", general))]
    per_point = r.cost_per_point
    return [
        "Metric gain: "
        + ", ".join(g for g, v in zip(gains, (target, general), strict=True) if v is not None),
        f"Cost per target point: {money(per_point)} {r.currency}"
        + ("" if per_point is not None else " (no target gain)")
        + " (realized cost / target points; 1 point = 0.01 of a 0-1 metric)",
    ]


def flops(value: Any) -> str:
    return "-" if value is None else f"{float(value):.3g}"


def mfu(value: str | None) -> str:
    return "-" if value is None else f"{Decimal(value) * 100:.1f}%"


def compute_rows(r: Reconciliation) -> list[list[str]]:
    return [
        [
            c["phase"],
            flops(c.get("flops")),
            hours(c.get("estimated_gpu_hours")),
            hours(c.get("implied_gpu_hours")),
            hours(c.get("logged_gpu_hours")),
            mfu(c.get("implied_mfu")),
        ]
        for c in r.assumptions.get("compute", [])
    ]


def hardware_line(r: Reconciliation, esc: Callable[[str], str] = same) -> str | None:
    est = r.assumptions.get("estimator")
    if not isinstance(est, dict):
        return None

    def value(key: str) -> str:
        return esc(str(est[key]["value"])) if key in est else "?"

    currency = esc(str(r.assumptions.get("estimator_currency", r.currency)))
    return (
        f"Compute on {value('gpu_type')} (peak {value('peak_tflops')} TFLOP/s dense BF16), "
        f"priced at {value('price_per_gpu_hour')} {currency} per GPU hour; "
        f"the estimator's own total is {esc(str(r.assumptions.get('estimator_total') or '-'))} {currency}"
    )


def assumption_rows(r: Reconciliation) -> list[list[str]]:
    est = r.assumptions.get("estimator")
    if not isinstance(est, dict):
        return []
    return [[name, str(a["value"]), str(a["source"])] for name, a in est.items()]


def estimator_warnings(r: Reconciliation) -> list[str]:
    """What the estimator warned about its own numbers (low utilisation, unknown params), as it said it."""
    return [str(w) for w in r.assumptions.get("estimator_warnings") or []]


def assumption_lines(r: Reconciliation, esc: Callable[[str], str] = same) -> list[str]:
    keys = ("estimate_source", "realized_measure", "priced_by_rate_card", "implied_gpu_hours", "implied_mfu")
    return [f"{key}: {esc(str(r.assumptions[key]))}" for key in keys if key in r.assumptions]


def eval_share(r: Reconciliation) -> str:
    share = "-" if r.eval_share is None else f"{r.eval_share:.1%}"
    return f"Evaluation: {share} of realized cost (teams commonly see 20-40%)"


def other_currencies(r: Reconciliation, esc: Callable[[str], str] = same) -> str:
    return f"Also realized in {esc(', '.join(r.other_currencies))} (not converted, not included above)"


def reserved_lines(r: Reconciliation, esc: Callable[[str], str] = same) -> list[str]:
    """One line per reservation the run used: unused while it ran (its waste) and over the window (the
    owner's, counted once in `report --by waste`)."""
    return [
        f"reservation {esc(u.id)} ({esc(u.project)}, {when(u.start)} to {when(u.end)}): "
        f"{money(u.during_run)} unused while the run ran, {money(u.in_window)} unused over its window"
        for u in r.reservations
    ]
