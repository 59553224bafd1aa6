"""Reconcile reports for people: terminal text, markdown and a self-contained HTML post-mortem.

Every format shows the same figures: estimated vs realized by phase x category, waste, how complete the
bill is, implied GPU hours and MFU per phase, and the estimator's assumptions next to its numbers.
"""

from __future__ import annotations

import html as html_lib
from datetime import datetime
from decimal import Decimal
from typing import Any

from trainledger.outputs.tables import table
from trainledger.reports.reconcile import Reconciliation

HEADERS = ["phase", "category", "estimated", "realized", "variance", "variance %"]
COMPUTE_HEADERS = ["phase", "FLOPs", "estimated GPU-h", "implied GPU-h", "logged GPU-h", "implied MFU"]


def _m(value: Decimal | None) -> str:
    return "-" if value is None else f"{value.quantize(Decimal('0.01')):,f}"


def _pct(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


def _t(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else "-"


def _state(r: Reconciliation) -> str:
    if not r.provisional:
        return "complete"
    if r.ended_at is None:
        return "PROVISIONAL: the run has not ended"
    return f"PROVISIONAL: billing does not yet reach the run's end ({_t(r.ended_at)})"


def _header_lines(r: Reconciliation) -> list[str]:
    return [
        f"Experiment {r.experiment_id}  project {r.project or '-'}  method {r.method or '-'}  "
        f"status {r.status or '-'}",
        f"Run {_t(r.started_at)} -> {_t(r.ended_at)}; billing complete through "
        f"{_t(r.billing_complete_through)} ({_state(r)})",
        f"Money in {r.currency}, EffectiveCost (amortised, net of credits); estimate from "
        f"{r.assumptions.get('estimate_source', '-')}",
    ]


def _total_variance(r: Reconciliation) -> tuple[Decimal, Decimal | None]:
    variance = r.realized_total - r.estimated_total
    pct = (variance / r.estimated_total * 100) if r.estimated_total else None
    return variance, pct


def _rows(r: Reconciliation) -> list[list[str]]:
    rows = [
        [x.phase, x.category, _m(x.estimated), _m(x.realized), _m(x.variance), _pct(x.variance_pct)]
        for x in r.rows
    ]
    variance, pct = _total_variance(r)
    rows.append(["total", "", _m(r.estimated_total), _m(r.realized_total), _m(variance), _pct(pct)])
    return rows


def _flops(value: Any) -> str:
    return "-" if value is None else f"{float(value):.3g}"


def _mfu(value: str | None) -> str:
    return "-" if value is None else f"{Decimal(value) * 100:.1f}%"


def _hours(value: str | None) -> str:
    return "-" if value is None else f"{Decimal(value):,.2f}"


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


def _hardware_line(r: Reconciliation) -> str | None:
    est = r.assumptions.get("estimator")
    if not isinstance(est, dict):
        return None

    def value(key: str) -> str:
        return str(est[key]["value"]) if key in est else "?"

    currency = r.assumptions.get("estimator_currency", r.currency)
    return (
        f"Compute on {value('gpu_type')} (peak {value('peak_tflops')} TFLOP/s dense BF16), "
        f"priced at {value('price_per_gpu_hour')} {currency} per GPU hour; "
        f"the estimator's own total is {r.assumptions.get('estimator_total') or '-'} {currency}"
    )


def _assumption_rows(r: Reconciliation) -> list[list[str]]:
    est = r.assumptions.get("estimator")
    if not isinstance(est, dict):
        return []
    return [[name, str(a["value"]), str(a["source"])] for name, a in est.items()]


def _phase_totals(r: Reconciliation) -> list[tuple[str, Decimal | None, Decimal]]:
    """(phase, estimated or None when nothing was estimated, realized), in report order."""
    totals: dict[str, list[Decimal | None]] = {}
    for row in r.rows:
        est, real = totals.setdefault(row.phase, [None, Decimal(0)])
        if row.estimated is not None:
            est = (est or Decimal(0)) + row.estimated
        totals[row.phase] = [est, (real or Decimal(0)) + row.realized]
    return [(p, e, v or Decimal(0)) for p, (e, v) in totals.items()]


def _eval_share(r: Reconciliation) -> str:
    share = "-" if r.eval_share is None else f"{r.eval_share:.1%}"
    return f"Evaluation: {share} of realized cost (teams commonly see 20-40%)"


def text(r: Reconciliation) -> str:
    lines = [*_header_lines(r), ""]
    lines.append(table(HEADERS, _rows(r), money=HEADERS[2:]))
    lines.append("")
    lines.append(f"Waste (hidden cost): idle {_m(r.idle)}  failed {_m(r.failed)}")
    lines.append(_eval_share(r))
    if r.other_currencies:
        lines.append(f"Also realized in {', '.join(r.other_currencies)} (not converted, not included above)")
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
    missing = r.assumptions.get("estimator_missing") or []
    if missing:
        lines.extend(["", "Missing from params (reported, not guessed)"])
        lines.extend(f"  - {m}" for m in missing)
    return "\n".join(lines) + "\n"


def _md_cell(value: str) -> str:
    """Markdown table cell: pipes escaped, and no raw HTML from labels or ids."""
    return value.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _md_table(headers: list[str], rows: list[list[str]], right_from: int) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(headers))]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |"]
    out.extend("| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows)
    return out


def markdown(r: Reconciliation) -> str:
    lines = [f"# Post-mortem: {r.experiment_id}", ""]
    lines.extend(f"- {line}" for line in _header_lines(r))
    lines.extend(["", "## Estimated vs realized", ""])
    lines.extend(_md_table(HEADERS, _rows(r), 2))
    lines.extend(
        [
            "",
            "## Waste",
            "",
            f"- idle: {_m(r.idle)} {r.currency}",
            f"- failed: {_m(r.failed)} {r.currency}",
            f"- {_eval_share(r)}",
        ]
    )
    compute = _compute_rows(r)
    if compute:
        lines.extend(["", "## Compute", ""])
        hardware = _hardware_line(r)
        if hardware:
            lines.extend([hardware, ""])
        lines.extend(_md_table(COMPUTE_HEADERS, compute, 1))
    lines.extend(["", "## Assumptions", ""])
    for key in ("estimate_source", "realized_measure", "implied_gpu_hours", "implied_mfu"):
        if key in r.assumptions:
            lines.append(f"- {key}: {r.assumptions[key]}")
    assumptions = _assumption_rows(r)
    if assumptions:
        lines.append("")
        lines.extend(_md_table(["name", "value", "source"], assumptions, 3))
    missing = r.assumptions.get("estimator_missing") or []
    if missing:
        lines.extend(["", "### Missing from params", ""])
        lines.extend(f"- {_md_cell(m)}" for m in missing)
    return "\n".join(lines) + "\n"


def _nice_step(peak: Decimal) -> Decimal:
    """A round axis step (1, 2, 2.5 or 5 x 10^k) giving at most five gridlines up to ``peak``."""
    raw = peak / 5
    magnitude = Decimal(10) ** (len(str(int(raw))) - 1) if raw >= 1 else Decimal("0.1")
    for factor in (1, 2, Decimal("2.5"), 5, 10):
        if magnitude * factor >= raw:
            return magnitude * factor
    return magnitude * 10


def chart(r: Reconciliation) -> str:
    """Estimated vs realized per phase as an inline SVG (no script, no external resource)."""
    esc = html_lib.escape
    phases = _phase_totals(r)
    peak = max([max(e or Decimal(0), v) for _, e, v in phases] + [Decimal(1)])
    step = _nice_step(peak)
    axis_max = step * ((peak / step).to_integral_value(rounding="ROUND_CEILING"))
    left, width, group = 110, 500, 62
    top = 48
    height = top + group * max(len(phases), 1) + 10

    def x(value: Decimal) -> float:
        return left + float(value / axis_max) * width

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="760" height="{height}" viewBox="0 0 760 {height}" '
        'role="img" '
        f'aria-label="estimated vs realized cost per phase, {esc(r.currency)}" class="chart">',
        '<rect x="110" y="6" width="14" height="12" class="est"/><text x="130" y="16">estimated</text>',
        '<rect x="220" y="6" width="14" height="12" class="real"/><text x="240" y="16">realized</text>',
        '<rect x="330" y="6" width="14" height="12" class="over"/><text x="350" y="16">realized, over estimate</text>',
    ]
    tick = Decimal(0)
    while tick <= axis_max:
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{top - 8}" x2="{x(tick):.1f}" y2="{height - 6}" class="grid"/>'
            f'<text x="{x(tick):.1f}" y="{top - 12}" class="tick">{tick:,.0f}</text>'
        )
        tick += step
    for i, (phase, est, real) in enumerate(phases):
        y = top + i * group
        parts.append(f'<text x="{left - 10}" y="{y + 24}" class="phase">{esc(phase)}</text>')
        if est is not None:
            parts.append(
                f'<rect x="{left}" y="{y}" width="{x(est) - left:.1f}" height="20" class="est"/>'
                f'<text x="{x(est) + 6:.1f}" y="{y + 15}">est {_m(est)}</text>'
            )
        else:
            parts.append(f'<text x="{left + 6}" y="{y + 15}" class="none">no estimate</text>')
        over = est is not None and real > est
        note = ""
        if est:
            note = f" ({_pct((real - est) / est * 100)})"
        parts.append(
            f'<rect x="{left}" y="{y + 24}" width="{x(real) - left:.1f}" height="20" '
            f'class="{"over" if over else "real"}"/>'
            f'<text x="{x(real) + 6:.1f}" y="{y + 39}">real {_m(real)}{note}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:62rem;color:#1d2430;
padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.25rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #e3e7ee;
padding-bottom:.2rem}
.meta{color:#4a5568;margin:.1rem 0}
.banner{padding:.6rem .9rem;border-radius:6px;margin:1rem 0;font-weight:600}
.banner.provisional{background:#fff4e5;color:#8a4b00;border:1px solid #f0c36d}
.banner.complete{background:#eaf6ee;color:#1f6b3a;border:1px solid #a9d8b8}
.kpis{display:flex;gap:1rem;margin:1rem 0;flex-wrap:wrap}
.kpi{border:1px solid #e3e7ee;border-radius:8px;padding:.6rem 1rem;min-width:9rem}
.kpi .label{font-size:.8rem;color:#5b6577;text-transform:uppercase;letter-spacing:.04em}
.kpi .value{font-size:1.35rem;font-weight:650;font-variant-numeric:tabular-nums}
.kpi .value.bad{color:#b42318}.kpi .value.good{color:#1f6b3a}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}
td,th{border-bottom:1px solid #e3e7ee;padding:.3rem .7rem;text-align:left}
th{background:#f5f7fa;font-weight:600}td.num,th.num{text-align:right}
tr.total td{font-weight:650;border-top:2px solid #9aa5b5}
.chart text{font-size:12px;fill:#1d2430}.chart .phase{text-anchor:end;font-weight:600;font-size:13px}
.chart .tick{text-anchor:middle;fill:#5b6577;font-size:11px}.chart .grid{stroke:#e3e7ee}
.chart .est{fill:#b8c7e0}.chart .real{fill:#2f5d9e}.chart .over{fill:#c2410c}.chart .none{fill:#8a94a6}
.small{color:#5b6577;font-size:.85rem}
.scroll{overflow-x:auto}svg.chart{max-width:100%;height:auto}
ul.missing li{color:#8a4b00}
"""


def _html_table(
    headers: list[str], rows: list[list[str]], numeric_from: int, total_last: bool = False
) -> str:
    esc = html_lib.escape
    head = "".join(
        f'<th class="num">{esc(h)}</th>' if i >= numeric_from else f"<th>{esc(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = []
    for n, row in enumerate(rows):
        cls = ' class="total"' if total_last and n == len(rows) - 1 else ""
        cells = "".join(
            f'<td class="num">{esc(c)}</td>' if i >= numeric_from else f"<td>{esc(c)}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr{cls}>{cells}</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def html(r: Reconciliation) -> str:
    esc = html_lib.escape
    variance, pct = _total_variance(r)
    banner_cls = "provisional" if r.provisional else "complete"
    banner = (
        f"Provisional: billing is complete through {_t(r.billing_complete_through)}, "
        f"before the end of the run ({_t(r.ended_at)}); late charges may still arrive."
        if r.provisional
        else f"Billing is complete through {_t(r.billing_complete_through)}, after the run ended."
    )
    kpis = [
        ("Estimated", f"{_m(r.estimated_total)} {r.currency}", ""),
        ("Realized", f"{_m(r.realized_total)} {r.currency}", ""),
        ("Variance", f"{_m(variance)} ({_pct(pct)})", "bad" if variance > 0 else "good"),
        ("Waste", f"{_m(r.idle + r.failed)} {r.currency}", "bad" if r.idle + r.failed > 0 else ""),
    ]
    kpi_html = "".join(
        f'<div class="kpi"><div class="label">{esc(k)}</div><div class="value {cls}">{esc(v)}</div></div>'
        for k, v, cls in kpis
    )
    sections = [
        f"<h1>Post-mortem: {esc(r.experiment_id)}</h1>",
        *(f'<p class="meta">{esc(line)}</p>' for line in _header_lines(r)),
        f'<div class="banner {banner_cls}">{esc(banner)}</div>',
        f'<div class="kpis">{kpi_html}</div>',
        f"<h2>Estimated vs realized per phase ({esc(r.currency)})</h2>",
        chart(r),
        _html_table(HEADERS, _rows(r), 2, total_last=True),
        "<h2>Waste (hidden cost)</h2>",
        f"<p>idle {esc(_m(r.idle))} · failed {esc(_m(r.failed))} {esc(r.currency)}</p>",
    ]
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
    assumptions = _assumption_rows(r)
    if assumptions:
        sections.append("<h2>Assumptions</h2>")
        sections.append(_html_table(["name", "value", "source"], assumptions, 3))
    missing = r.assumptions.get("estimator_missing") or []
    if missing:
        sections.append("<h2>Missing from params</h2>")
        sections.append('<ul class="missing">' + "".join(f"<li>{esc(m)}</li>" for m in missing) + "</ul>")
    if r.other_currencies:
        sections.append(
            f"<p>Also realized in {esc(', '.join(r.other_currencies))} (not converted, not included above).</p>"
        )
    body = "\n".join(sections)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Post-mortem {esc(r.experiment_id)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
        "</body></html>\n"
    )
