"""Reconcile reports for people: terminal text, markdown and a self-contained HTML page."""

from __future__ import annotations

import html as html_lib
from decimal import Decimal

from trainledger.reconcile import Reconciliation
from trainledger.tables import table


def _m(value: Decimal | None) -> str:
    return "-" if value is None else f"{value.quantize(Decimal('0.01')):,f}"


def _pct(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


def _header_lines(r: Reconciliation) -> list[str]:
    span = f"{_t(r.started_at)} -> {_t(r.ended_at)}"
    state = "PROVISIONAL: billing data is not complete for the whole run" if r.provisional else "complete"
    return [
        f"Experiment {r.experiment_id}  project {r.project or '-'}  method {r.method or '-'}  "
        f"status {r.status or '-'}",
        f"Run {span}; billing complete through {_t(r.billing_complete_through)} ({state})",
        f"Money in {r.currency}, EffectiveCost (amortised, net of credits)",
    ]


def _t(value: object) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else "-"  # type: ignore[attr-defined]


def _rows(r: Reconciliation) -> list[list[str]]:
    rows = [
        [x.phase, x.category, _m(x.estimated), _m(x.realized), _m(x.variance), _pct(x.variance_pct)]
        for x in r.rows
    ]
    total_var = r.realized_total - r.estimated_total
    pct = (total_var / r.estimated_total * 100) if r.estimated_total else None
    rows.append(["total", "", _m(r.estimated_total), _m(r.realized_total), _m(total_var), _pct(pct)])
    return rows


HEADERS = ["phase", "category", "estimated", "realized", "variance", "variance %"]


def text(r: Reconciliation) -> str:

    lines = _header_lines(r)
    lines.append("")
    body = _rows(r)
    lines.append(table(HEADERS, body, money=HEADERS[2:]))
    lines.append("")
    lines.append(f"Waste (hidden cost): idle {_m(r.idle)}  failed {_m(r.failed)}")
    if r.other_currencies:
        lines.append(f"Also realized in {', '.join(r.other_currencies)} (not converted, not included above)")
    return "\n".join(lines) + "\n"


def markdown(r: Reconciliation) -> str:
    lines = [f"# Post-mortem: {r.experiment_id}", ""]
    lines.extend(f"- {line}" for line in _header_lines(r))
    lines.extend(["", "| " + " | ".join(HEADERS) + " |", "|" + "---|" * 2 + "---:|" * 4])
    for phase, category, *numbers in _rows(r):  # numbers stay numbers: a leading minus is not a formula
        cells = [_md_cell(phase), _md_cell(category), *(n.replace("|", "\\|") for n in numbers)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.extend(
        ["", "## Waste", "", f"- idle: {_m(r.idle)} {r.currency}", f"- failed: {_m(r.failed)} {r.currency}"]
    )
    lines.extend(["", "## Assumptions", ""])
    lines.extend(f"- {k}: {v}" for k, v in r.assumptions.items())
    return "\n".join(lines) + "\n"


def _md_cell(value: str) -> str:
    from trainledger.export import safe_text

    return safe_text(value).replace("|", "\\|")


def html(r: Reconciliation) -> str:
    esc = html_lib.escape
    by_phase: dict[str, list[Decimal]] = {}
    for row in r.rows:
        est, real = by_phase.setdefault(row.phase, [Decimal(0), Decimal(0)])
        by_phase[row.phase] = [est + (row.estimated or 0), real + row.realized]
    peak = max([max(v) for v in by_phase.values()] + [Decimal(1)])
    bars = []
    for i, (phase, (est, real)) in enumerate(by_phase.items()):
        y = 20 + i * 56
        bars.append(f'<text x="0" y="{y + 14}">{esc(phase)}</text>')
        bars.append(
            f'<rect x="90" y="{y}" width="{float(est / peak) * 480:.1f}" height="18" fill="#9db4d6"/>'
            f'<text x="{95 + float(est / peak) * 480:.1f}" y="{y + 14}">est {_m(est)}</text>'
        )
        bars.append(
            f'<rect x="90" y="{y + 22}" width="{float(real / peak) * 480:.1f}" height="18" fill="#2f5d9e"/>'
            f'<text x="{95 + float(real / peak) * 480:.1f}" y="{y + 36}">real {_m(real)}</text>'
        )
    height = 30 + 56 * max(len(by_phase), 1)
    table_rows = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in _rows(r))
    header = "".join(f"<li>{esc(line)}</li>" for line in _header_lines(r))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Post-mortem {esc(r.experiment_id)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3rem .6rem}}td:nth-child(n+3){{text-align:right}}
.prov{{color:#a40}}svg text{{font-size:12px}}</style></head><body>
<h1>Post-mortem: {esc(r.experiment_id)}</h1><ul>{header}</ul>
{'<p class="prov">Provisional: billing data does not yet cover the end of the run.</p>' if r.provisional else ""}
<h2>Estimated vs realized per phase ({esc(r.currency)})</h2>
<svg width="760" height="{height}" role="img" aria-label="estimated vs realized per phase">{"".join(bars)}</svg>
<table><thead><tr>{"".join(f"<th>{h}</th>" for h in HEADERS)}</tr></thead><tbody>{table_rows}</tbody></table>
<h2>Waste</h2><p>idle {_m(r.idle)} · failed {_m(r.failed)} {esc(r.currency)}</p>
</body></html>
"""
