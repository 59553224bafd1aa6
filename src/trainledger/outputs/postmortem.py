"""Reconcile reports for people: terminal text, markdown and a self-contained HTML post-mortem.

Every format shows the same figures: estimated vs realized by phase x category (the variance headline over
the estimated lines, the lines nobody estimated apart), waste and the evaluation share, metric gain and cost
per point, how complete the bill is, implied GPU hours and MFU per phase, and the estimator's assumptions
and warnings next to its numbers. A failed run's cost is waste, an under-run is never shown as a saving.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache
from typing import Any

from trainledger.attribution import waste
from trainledger.core.money import CENT
from trainledger.outputs.escape import esc
from trainledger.outputs.postmortem_svg import STYLE, Bar, chart
from trainledger.outputs.tables import hours as _hours
from trainledger.outputs.tables import table
from trainledger.reports import benefit
from trainledger.reports.reconcile import Reconciliation, Row

HEADERS = ["phase", "category", "estimated", "realized", "variance", "variance %"]
COMPUTE_HEADERS = ["phase", "FLOPs", "estimated GPU-h", "implied GPU-h", "logged GPU-h", "implied MFU"]
NO_ESTIMATE = "no estimate"


def _m(value: Decimal | None) -> str:
    return "-" if value is None else f"{value.quantize(CENT):,f}"


def _est(value: Decimal | None) -> str:
    return NO_ESTIMATE if value is None else _m(value)


def _pct(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


@lru_cache(maxsize=4096)  # the site writes a page per experiment; they share a few times
def _t(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else "-"


def _same(value: str) -> str:
    return value


def _md(value: str) -> str:
    """A value from the log or the bill as Markdown text: HTML and Markdown syntax escaped, line breaks
    and other control characters shown as \\uXXXX, so no value adds a heading, a tag or a link."""
    out = []
    for ch in value:
        if ch in "&<>":
            out.append({"&": "&amp;", "<": "&lt;", ">": "&gt;"}[ch])
        elif ch in "\\`*_[]!#|~":
            out.append("\\" + ch)
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def _state(r: Reconciliation) -> str:
    if not r.provisional:
        return "complete"
    if r.ended_at is None:
        return "PROVISIONAL: the run has not ended"
    return f"PROVISIONAL: billing does not yet reach the run's end ({_t(r.ended_at)})"


def failure(r: Reconciliation) -> str | None:
    """The banner of a failed or aborted run: what it cost bought nothing."""
    if r.status not in waste.FAILED_STATUSES:
        return None
    when = f"at {_t(r.ended_at)}" if r.ended_at else "(no end time logged)"
    return f"{r.status} {when}; realized cost is waste"


def _no_cost(r: Reconciliation) -> str | None:
    if any(row.realized for row in r.rows):
        return None
    return (
        f"No cost billed to this experiment yet (billing complete through {_t(r.billing_complete_through)})."
    )


def _header_lines(r: Reconciliation, esc: Callable[[str], str] = _same) -> list[str]:
    source = r.assumptions.get("estimate_source", "none")
    estimate = (
        "no estimate (none in the log, no params for the estimator)"
        if source == "none"
        else f"estimate from {esc(str(source))}"
    )
    return [
        f"Experiment {esc(r.experiment_id)}  project {esc(r.project or '-')}  method {esc(r.method or '-')}  "
        f"status {esc(r.status or '-')}",
        f"Run {_t(r.started_at)} -> {_t(r.ended_at)}; billing complete through "
        f"{_t(r.billing_complete_through)} ({_state(r)})",
        f"Money in {esc(r.currency)}, EffectiveCost (amortised, net of credits); {estimate}",
    ]


@dataclass
class Headline:
    """Variance over the lines that have an estimate; the lines nobody estimated apart (data or ops cost
    nobody estimated is not an overrun of the estimate)."""

    estimated: Decimal | None  # None: no line has an estimate
    realized_estimated: Decimal
    unestimated: Decimal
    unestimated_lines: int

    @property
    def variance(self) -> Decimal | None:
        return None if self.estimated is None else self.realized_estimated - self.estimated

    @property
    def pct(self) -> Decimal | None:
        if not self.estimated or self.variance is None:
            return None
        return (self.variance / self.estimated * 100).quantize(Decimal("0.01"), ROUND_HALF_EVEN)


def headline(r: Reconciliation) -> Headline:
    estimated = [x for x in r.rows if x.estimated is not None]
    return Headline(
        estimated=sum((x.estimated or Decimal(0) for x in estimated), Decimal(0)) if estimated else None,
        realized_estimated=sum((x.realized for x in estimated), Decimal(0)),
        unestimated=sum((x.realized for x in r.rows if x.estimated is None), Decimal(0)),
        unestimated_lines=len(r.rows) - len(estimated),
    )


# A line of the table with its figures formatted once: estimated, realized, variance, variance %.
Line = tuple[Row, str, str, str, str]


def _lines(r: Reconciliation) -> list[Line]:
    out = []
    for x in r.rows:
        pct = x.variance_pct
        out.append(
            (x, _est(x.estimated), _m(x.realized), _m(x.variance), "-" if pct is None else f"{pct:+.1f}%")
        )
    return out


def _rows(r: Reconciliation, lines: list[Line] | None = None, h: Headline | None = None) -> list[list[str]]:
    rows = [[x.phase, x.label, *figures] for x, *figures in (_lines(r) if lines is None else lines)]
    h = headline(r) if h is None else h
    if h.estimated is not None and h.unestimated_lines:
        rows.append(
            ["estimated lines", "", _m(h.estimated), _m(h.realized_estimated), _m(h.variance), _pct(h.pct)]
        )
        rows.append(["lines with no estimate", "", NO_ESTIMATE, _m(h.unestimated), "-", "-"])
        rows.append(["total", "", _m(h.estimated), _m(r.realized_total), "-", "-"])
    else:
        rows.append(["total", "", _est(h.estimated), _m(r.realized_total), _m(h.variance), _pct(h.pct)])
    return rows


def _bars(lines: list[Line]) -> list[Bar]:
    """The chart's bars: the table's lines, with the table's own variance text."""
    return [
        Bar(
            x.phase,
            x.label,
            x.estimated,
            x.realized,
            NO_ESTIMATE if x.estimated is None else f"est {est}",
            f"real {real}" + ("" if pct == "-" else f" ({pct})"),
        )
        for x, est, real, _, pct in lines
    ]


def _benefit_lines(r: Reconciliation) -> list[str]:
    """Metric gain and cost per point, when the log has metrics (points as in `report --with-metrics`)."""
    target, general = benefit.points(r.metrics.get("target")), benefit.points(r.metrics.get("general"))
    if target is None and general is None:
        return []
    gains = [f"{name} {value:+.2f} points" for name, value in (("target", target), ("general", general))]
    per_point = benefit.per_point(r.realized_total, target)
    return [
        "Metric gain: "
        + ", ".join(g for g, v in zip(gains, (target, general), strict=True) if v is not None),
        f"Cost per target point: {_m(per_point)} {r.currency}"
        + ("" if per_point is not None else " (no target gain)")
        + " (realized cost / target points; 1 point = 0.01 of a 0-1 metric)",
    ]


def _flops(value: Any) -> str:
    return "-" if value is None else f"{float(value):.3g}"


def _mfu(value: str | None) -> str:
    return "-" if value is None else f"{Decimal(value) * 100:.1f}%"


def _compute_rows(r: Reconciliation) -> list[list[str]]:
    return [
        [
            c["phase"],
            _flops(c.get("flops")),
            _hours(c.get("estimated_gpu_hours")),
            _hours(c.get("implied_gpu_hours")),
            _hours(c.get("logged_gpu_hours")),
            _mfu(c.get("implied_mfu")),
        ]
        for c in r.assumptions.get("compute", [])
    ]


def _hardware_line(r: Reconciliation, esc: Callable[[str], str] = _same) -> str | None:
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


def _assumption_rows(r: Reconciliation) -> list[list[str]]:
    est = r.assumptions.get("estimator")
    if not isinstance(est, dict):
        return []
    return [[name, str(a["value"]), str(a["source"])] for name, a in est.items()]


def _estimator_warnings(r: Reconciliation) -> list[str]:
    """What the estimator warned about its own numbers (low utilisation, unknown params), as it said it."""
    return [str(w) for w in r.assumptions.get("estimator_warnings") or []]


def _assumption_lines(r: Reconciliation, esc: Callable[[str], str] = _same) -> list[str]:
    keys = ("estimate_source", "realized_measure", "priced_by_rate_card", "implied_gpu_hours", "implied_mfu")
    return [f"{key}: {esc(str(r.assumptions[key]))}" for key in keys if key in r.assumptions]


def _eval_share(r: Reconciliation) -> str:
    share = "-" if r.eval_share is None else f"{r.eval_share:.1%}"
    return f"Evaluation: {share} of realized cost (teams commonly see 20-40%)"


def _other_currencies(r: Reconciliation, esc: Callable[[str], str] = _same) -> str:
    return f"Also realized in {esc(', '.join(r.other_currencies))} (not converted, not included above)"


def _reserved_lines(r: Reconciliation, esc: Callable[[str], str] = _same) -> list[str]:
    """One line per reservation the run used: unused while it ran (its waste) and over the window (the
    owner's, counted once in `report --by waste`)."""
    return [
        f"reservation {esc(u.id)} ({esc(u.project)}, {_t(u.start)} to {_t(u.end)}): "
        f"{_m(u.during_run)} unused while the run ran, {_m(u.in_window)} unused over its window"
        for u in r.reservations
    ]


def text(r: Reconciliation) -> str:
    failed, empty = failure(r), _no_cost(r)
    lines = [*([failed.upper(), ""] if failed else []), *_header_lines(r), ""]
    if empty:
        lines.extend([empty, ""])
    lines.append(table(HEADERS, _rows(r), money=HEADERS[2:]))
    lines.append("")
    unused = f"  unused commitment {_m(r.unused_commitment)}" if r.reservations else ""
    lines.append(f"Waste (hidden cost): idle {_m(r.idle)}  failed {_m(r.failed)}{unused}")
    lines.extend(f"  {line}" for line in _reserved_lines(r))
    lines.append(_eval_share(r))
    lines.extend(_benefit_lines(r))
    if r.other_currencies:
        lines.append(_other_currencies(r))
    hardware = _hardware_line(r)
    if hardware:
        lines.extend(["", hardware])
    compute = _compute_rows(r)
    if compute:
        lines.append(table(COMPUTE_HEADERS, compute, money=COMPUTE_HEADERS[1:]))
        lines.append(
            "implied GPU-h = realized compute / price per GPU hour; implied MFU = FLOPs / (GPU-h x peak)"
        )
    assumptions = _assumption_rows(r)
    if assumptions:
        lines.extend(["", "Assumptions", table(["name", "value", "source"], assumptions)])
    warnings = _estimator_warnings(r)
    if warnings:
        lines.extend(["", "Estimator warnings"])
        lines.extend(f"  - {w}" for w in warnings)
    missing = r.assumptions.get("estimator_missing") or []
    if missing:
        lines.extend(["", "Missing from params (reported, not guessed)"])
        lines.extend(f"  - {m}" for m in missing)
    return "\n".join(lines) + "\n"


def _md_table(headers: list[str], rows: list[list[str]], right_from: int) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(headers))]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |"]
    out.extend("| " + " | ".join(_md(c) for c in row) + " |" for row in rows)
    return out


def markdown(r: Reconciliation) -> str:
    """Every value from the log or the bill goes through ``_md``: it cannot add a heading or a tag."""
    lines = [f"# Post-mortem: {_md(r.experiment_id)}", ""]
    failed, empty = failure(r), _no_cost(r)
    if failed:
        lines.extend([f"> **{_md(failed)}**", ""])
    lines.extend(f"- {line}" for line in _header_lines(r, _md))
    lines.extend(["", "## Estimated vs realized", ""])
    if empty:
        lines.extend([empty, ""])
    lines.extend(_md_table(HEADERS, _rows(r), 2))
    lines.extend(["", "## Waste", "", f"- idle: {_m(r.idle)} {_md(r.currency)}"])
    lines.append(f"- failed: {_m(r.failed)} {_md(r.currency)}")
    if r.reservations:
        lines.append(f"- unused commitment: {_m(r.unused_commitment)} {_md(r.currency)}")
        lines.extend(f"  - {line}" for line in _reserved_lines(r, _md))
    lines.append(f"- {_eval_share(r)}")
    benefits = _benefit_lines(r)
    if benefits:
        lines.extend(["", "## Benefit", ""])
        lines.extend(f"- {line}" for line in benefits)
    if r.other_currencies:
        lines.extend(["", _other_currencies(r, _md)])
    compute = _compute_rows(r)
    if compute:
        lines.extend(["", "## Compute", ""])
        hardware = _hardware_line(r, _md)
        if hardware:
            lines.extend([hardware, ""])
        lines.extend(_md_table(COMPUTE_HEADERS, compute, 1))
    lines.extend(["", "## Assumptions", ""])
    lines.extend(f"- {line}" for line in _assumption_lines(r, _md))
    assumptions = _assumption_rows(r)
    if assumptions:
        lines.append("")
        lines.extend(_md_table(["name", "value", "source"], assumptions, 3))
    warnings = _estimator_warnings(r)
    if warnings:
        lines.extend(["", "### Estimator warnings", ""])
        lines.extend(f"- {_md(w)}" for w in warnings)
    missing = r.assumptions.get("estimator_missing") or []
    if missing:
        lines.extend(["", "### Missing from params", ""])
        lines.extend(f"- {_md(m)}" for m in missing)
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=16)
def _html_head(headers: tuple[str, ...], numeric_from: int) -> str:
    return "".join(
        f'<th class="num">{esc(h)}</th>' if i >= numeric_from else f"<th>{esc(h)}</th>"
        for i, h in enumerate(headers)
    )


def _html_table(headers: list[str], rows: list[list[str]], numeric_from: int, totals: int = 0) -> str:
    """A table in a box that scrolls sideways, so a narrow screen scrolls the table, not the page. Cells
    from ``numeric_from`` on are formatted figures (digits, signs, "-", "no estimate"): nothing to escape."""
    head = _html_head(tuple(headers), numeric_from)
    body = []
    last = len(rows) - totals
    for n, row in enumerate(rows):
        text = "".join([f"<td>{esc(c)}</td>" for c in row[:numeric_from]])
        figures = '</td><td class="num">'.join(row[numeric_from:])
        cells = f'{text}<td class="num">{figures}</td>' if len(row) > numeric_from else text
        body.append(f'<tr class="total">{cells}</tr>' if n >= last else f"<tr>{cells}</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def _kpis(r: Reconciliation, h: Headline) -> str:
    """Headline figures: an over-run is red, an under-run neutral (never a 'saving'), and cost that no
    line estimated is its own figure, not part of the variance."""
    cur = r.currency
    kpis = [
        ("Estimated", _est(h.estimated) + ("" if h.estimated is None else f" {cur}"), ""),
        ("Realized", f"{_m(r.realized_total)} {cur}", ""),
    ]
    if h.estimated is not None:
        label = "Variance, estimated lines" if h.unestimated_lines else "Variance"
        bad = h.variance is not None and h.variance > 0
        kpis.append((label, f"{_m(h.variance)} ({_pct(h.pct)})", "bad" if bad else ""))
    if h.unestimated_lines:
        kpis.append(("Lines with no estimate", f"{_m(h.unestimated)} {cur}", ""))
    hidden = r.idle + r.failed + r.unused_commitment
    kpis.append(("Waste", f"{_m(hidden)} {cur}", "bad" if hidden > 0 else ""))
    return "".join(
        f'<div class="kpi"><div class="label">{esc(k)}</div><div class="value {cls}">{esc(v)}</div></div>'
        for k, v, cls in kpis
    )


def html(r: Reconciliation, stylesheet: str | None = None, before: str = "") -> str:
    """The page, self-contained (its style inline), or for the site the style linked from ``stylesheet``
    (one file for tens of thousands of pages) and ``before`` (navigation) at the top of the body."""
    banner_cls = "provisional" if r.provisional else "complete"
    banner = (
        f"Provisional: billing is complete through {_t(r.billing_complete_through)}, "
        f"before the end of the run ({_t(r.ended_at)}); late charges may still arrive."
        if r.provisional
        else f"Billing is complete through {_t(r.billing_complete_through)}, after the run ended."
    )
    failed, empty = failure(r), _no_cost(r)
    lines, h = _lines(r), headline(r)
    rows = _rows(r, lines, h)
    sections = [
        f"<h1>Post-mortem: {esc(r.experiment_id)}</h1>",
        *([f'<div class="banner failed">{esc(failed)}</div>'] if failed else []),
        *(f'<p class="meta">{esc(line)}</p>' for line in _header_lines(r)),
        f'<div class="banner {banner_cls}">{esc(banner)}</div>',
        f'<div class="kpis">{_kpis(r, h)}</div>',
        f"<h2>Estimated vs realized ({esc(r.currency)})</h2>",
        *([f'<p class="empty">{esc(empty)}</p>'] if empty else []),
        chart(_bars(lines), r.currency),
        _html_table(HEADERS, rows, 2, totals=len(rows) - len(r.rows)),
        "<h2>Waste (hidden cost)</h2>",
        f"<p>idle {esc(_m(r.idle))} · failed {esc(_m(r.failed))}"
        + (f" · unused commitment {esc(_m(r.unused_commitment))}" if r.reservations else "")
        + f" {esc(r.currency)}</p>",
        *(f'<p class="small">{esc(line)}</p>' for line in _reserved_lines(r)),
        f"<p>{esc(_eval_share(r))}</p>",
    ]
    benefits = _benefit_lines(r)
    if benefits:
        sections.append("<h2>Benefit</h2>")
        sections.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in benefits) + "</ul>")
    if r.other_currencies:
        sections.append(f"<p>{esc(_other_currencies(r))}.</p>")
    compute = _compute_rows(r)
    if compute:
        sections.append("<h2>Compute</h2>")
        hardware = _hardware_line(r)
        if hardware:
            sections.append(f"<p>{esc(hardware)}</p>")
        sections.append(_html_table(COMPUTE_HEADERS, compute, 1))
        sections.append(
            '<p class="small">implied GPU-h = realized compute cost / price per GPU hour (on-demand: '
            "discounts make it read low); implied MFU = FLOPs / (implied GPU-h x peak); logged GPU-h = "
            "the experiment log's windows x GPUs.</p>"
        )
    sections.append("<h2>Assumptions</h2>")
    sections.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in _assumption_lines(r)) + "</ul>")
    assumptions = _assumption_rows(r)
    if assumptions:
        sections.append(_html_table(["name", "value", "source"], assumptions, 3))
    warnings = _estimator_warnings(r)
    if warnings:
        sections.append("<h2>Estimator warnings</h2>")
        sections.append('<ul class="warnings">' + "".join(f"<li>{esc(w)}</li>" for w in warnings) + "</ul>")
    missing = r.assumptions.get("estimator_missing") or []
    if missing:
        sections.append("<h2>Missing from params</h2>")
        sections.append('<ul class="missing">' + "".join(f"<li>{esc(m)}</li>" for m in missing) + "</ul>")
    body = "\n".join(sections)
    style = f'<link rel="stylesheet" href="{stylesheet}">' if stylesheet else f"<style>{STYLE}</style>"
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Post-mortem {esc(r.experiment_id)}</title>{style}</head>\n<body>\n{before}{body}\n"
        "</body></html>\n"
    )
