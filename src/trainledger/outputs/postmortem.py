"""Reconcile reports for people: terminal text, markdown and a self-contained HTML post-mortem.

Every format shows the same figures (``postmortem_figures.py``): estimated vs realized by phase x category
(the variance headline over the estimated lines, the lines nobody estimated apart), waste and the evaluation
share, metric gain and cost per point, how complete the bill is, implied GPU hours and MFU per phase, and
the estimator's assumptions and warnings next to its numbers. A failed run's cost is waste, an under-run is
never shown as a saving.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from functools import lru_cache

from trainledger.outputs import postmortem_figures as figures
from trainledger.outputs.escape import esc
from trainledger.outputs.postmortem_svg import STYLE, chart
from trainledger.outputs.tables import table, visible
from trainledger.reports.reconciliation import Reconciliation


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


def text(r: Reconciliation) -> str:
    failed, empty = figures.failure(r), figures.no_cost(r)
    lines = [*([failed.upper(), ""] if failed else []), *figures.header_lines(r), ""]
    if empty:
        lines.extend([empty, ""])
    lines.append(table(figures.HEADERS, figures.rows(r), money=figures.HEADERS[2:]))
    lines.append("")
    unused = f"  unused commitment {figures.money(r.unused_commitment)}" if r.reservations else ""
    lines.append(
        f"Waste (hidden cost): idle {figures.money(r.idle)}  failed {figures.money(r.failed)}{unused}"
    )
    lines.extend(f"  {line}" for line in figures.reserved_lines(r))
    lines.append(figures.eval_share(r))
    lines.extend(figures.benefit_lines(r))
    if r.other_currencies:
        lines.append(figures.other_currencies(r))
    hardware = figures.hardware_line(r)
    if hardware:
        lines.extend(["", hardware])
    compute = figures.compute_rows(r)
    if compute:
        lines.append(table(figures.COMPUTE_HEADERS, compute, money=figures.COMPUTE_HEADERS[1:]))
        lines.append(
            "implied GPU-h = realized compute / price per GPU hour; implied MFU = FLOPs / (GPU-h x peak)"
        )
    assumptions = figures.assumption_rows(r)
    if assumptions:
        lines.extend(["", "Assumptions", table(["name", "value", "source"], assumptions)])
    warnings = figures.estimator_warnings(r)
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
    failed, empty = figures.failure(r), figures.no_cost(r)
    if failed:
        lines.extend([f"> **{_md(failed)}**", ""])
    lines.extend(f"- {line}" for line in figures.header_lines(r, _md))
    lines.extend(["", "## Estimated vs realized", ""])
    if empty:
        lines.extend([empty, ""])
    lines.extend(_md_table(figures.HEADERS, figures.rows(r), 2))
    lines.extend(["", "## Waste", "", f"- idle: {figures.money(r.idle)} {_md(r.currency)}"])
    lines.append(f"- failed: {figures.money(r.failed)} {_md(r.currency)}")
    if r.reservations:
        lines.append(f"- unused commitment: {figures.money(r.unused_commitment)} {_md(r.currency)}")
        lines.extend(f"  - {line}" for line in figures.reserved_lines(r, _md))
    lines.append(f"- {figures.eval_share(r)}")
    benefits = figures.benefit_lines(r)
    if benefits:
        lines.extend(["", "## Benefit", ""])
        lines.extend(f"- {line}" for line in benefits)
    if r.other_currencies:
        lines.extend(["", figures.other_currencies(r, _md)])
    compute = figures.compute_rows(r)
    if compute:
        lines.extend(["", "## Compute", ""])
        hardware = figures.hardware_line(r, _md)
        if hardware:
            lines.extend([hardware, ""])
        lines.extend(_md_table(figures.COMPUTE_HEADERS, compute, 1))
    lines.extend(["", "## Assumptions", ""])
    lines.extend(f"- {line}" for line in figures.assumption_lines(r, _md))
    assumptions = figures.assumption_rows(r)
    if assumptions:
        lines.append("")
        lines.extend(_md_table(["name", "value", "source"], assumptions, 3))
    warnings = figures.estimator_warnings(r)
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


def _kpis(r: Reconciliation) -> str:
    """Headline figures: an over-run is red, an under-run neutral (never a 'saving'), and cost that no
    line estimated is its own figure, not part of the variance."""
    cur, h = r.currency, r.headline
    kpis = [
        ("Estimated", figures.estimate(h.estimated) + ("" if h.estimated is None else f" {cur}"), ""),
        ("Realized", f"{figures.money(r.realized_total)} {cur}", ""),
    ]
    if h.estimated is not None:
        label = "Variance, estimated lines" if h.unestimated_lines else "Variance"
        kpis.append(
            (label, f"{figures.money(h.variance)} ({figures.percent(h.pct)})", "bad" if h.over else "")
        )
    if h.unestimated_lines:
        kpis.append(("Lines with no estimate", f"{figures.money(h.unestimated)} {cur}", ""))
    kpis.append(("Waste", f"{figures.money(r.hidden_cost)} {cur}", "bad" if r.hidden_cost > 0 else ""))
    return "".join(
        f'<div class="kpi"><div class="label">{esc(k)}</div><div class="value {cls}">{esc(v)}</div></div>'
        for k, v, cls in kpis
    )


def html(r: Reconciliation, stylesheet: str | None = None, before: str = "") -> str:
    """The page, self-contained (its style inline), or for the site the style linked from ``stylesheet``
    (one file for tens of thousands of pages) and ``before`` (navigation) at the top of the body."""
    banner_cls = "provisional" if r.provisional else "complete"
    banner = (
        f"Provisional: billing is complete through {figures.when(r.billing_complete_through)}, "
        f"before the end of the run ({figures.when(r.ended_at)}); late charges may still arrive."
        if r.provisional
        else f"Billing is complete through {figures.when(r.billing_complete_through)}, after the run ended."
    )
    failed, empty = figures.failure(r), figures.no_cost(r)
    lines = figures.lines(r)
    rows = figures.rows(r, lines)
    sections = [
        f"<h1>Post-mortem: {esc(r.experiment_id)}</h1>",
        *([f'<div class="banner failed">{esc(failed)}</div>'] if failed else []),
        *(f'<p class="meta">{esc(line)}</p>' for line in figures.header_lines(r)),
        f'<div class="banner {banner_cls}">{esc(banner)}</div>',
        f'<div class="kpis">{_kpis(r)}</div>',
        f"<h2>Estimated vs realized ({esc(r.currency)})</h2>",
        *([f'<p class="empty">{esc(empty)}</p>'] if empty else []),
        chart(figures.bars(lines), r.currency),
        _html_table(figures.HEADERS, rows, 2, totals=len(rows) - len(r.rows)),
        "<h2>Waste (hidden cost)</h2>",
        f"<p>idle {esc(figures.money(r.idle))} · failed {esc(figures.money(r.failed))}"
        + (f" · unused commitment {esc(figures.money(r.unused_commitment))}" if r.reservations else "")
        + f" {esc(r.currency)}</p>",
        *(f'<p class="small">{esc(line)}</p>' for line in figures.reserved_lines(r)),
        f"<p>{esc(figures.eval_share(r))}</p>",
    ]
    benefits = figures.benefit_lines(r)
    if benefits:
        sections.append("<h2>Benefit</h2>")
        sections.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in benefits) + "</ul>")
    if r.other_currencies:
        sections.append(f"<p>{esc(figures.other_currencies(r))}.</p>")
    compute = figures.compute_rows(r)
    if compute:
        sections.append("<h2>Compute</h2>")
        hardware = figures.hardware_line(r)
        if hardware:
            sections.append(f"<p>{esc(hardware)}</p>")
        sections.append(_html_table(figures.COMPUTE_HEADERS, compute, 1))
        sections.append(
            '<p class="small">implied GPU-h = realized compute cost / price per GPU hour (on-demand: '
            "discounts make it read low); implied MFU = FLOPs / (implied GPU-h x peak); logged GPU-h = "
            "the experiment log's windows x GPUs.</p>"
        )
    sections.append("<h2>Assumptions</h2>")
    sections.append(
        "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in figures.assumption_lines(r)) + "</ul>"
    )
    assumptions = figures.assumption_rows(r)
    if assumptions:
        sections.append(_html_table(["name", "value", "source"], assumptions, 3))
    warnings = figures.estimator_warnings(r)
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


def terminal_safe(result: Reconciliation) -> Reconciliation:
    """The reconciliation with its text from the log and bills made visible, for a terminal table."""

    def text(value: str | None) -> str | None:
        return None if value is None else visible(value)

    return replace(
        result,
        experiment_id=visible(result.experiment_id),
        project=text(result.project),
        method=text(result.method),
        status=text(result.status),
        rows=[replace(r, phase=visible(r.phase), category=visible(r.category)) for r in result.rows],
        reservations=[replace(u, id=visible(u.id), project=visible(u.project)) for u in result.reservations],
    )
