"""The post-mortem's chart and page style: inline SVG and CSS, no script and no external resource.

The chart draws one pair of bars per line of the table, labelled with that line's own variance text, so
the chart and the table always show the same numbers. It scales to its container (viewBox, width 100%).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from trainledger.outputs.escape import esc

WIDTH = 660  # the SVG's own coordinate width; the page scales it down to its container


@dataclass
class Bar:
    phase: str
    category: str
    estimated: Decimal | None
    realized: Decimal
    estimated_text: str  # "est 950.00"
    realized_text: str  # "real 1,210.88 (+27.5%)": the table's figures
    over: bool = False  # realized above the estimate (reports/compare.py)


def nice_step(peak: Decimal) -> Decimal:
    """A round axis step (1, 2, 2.5 or 5 x 10^k) giving at most five gridlines up to ``peak``."""
    raw = peak / 5
    magnitude = Decimal(10) ** (len(str(int(raw))) - 1) if raw >= 1 else Decimal("0.1")
    for factor in (1, 2, Decimal("2.5"), 5, 10):
        if magnitude * factor >= raw:
            return magnitude * factor
    return magnitude * 10


def _places(step: Decimal) -> int:
    """Tick labels get as many decimals as the step needs: 0.2 steps read 0.0 0.2 0.4, never 0 0 0."""
    exponent = step.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


LEGEND = (
    '<rect x="110" y="6" width="14" height="12" class="est"/><text x="130" y="16">estimated</text>'
    '<rect x="210" y="6" width="14" height="12" class="real"/><text x="230" y="16">realized</text>'
    '<rect x="310" y="6" width="14" height="12" class="over"/><text x="330" y="16">realized, over estimate</text>'
)


def chart(bars: list[Bar], currency: str) -> str:
    """The bars' texts are the table's formatted figures (nothing to escape); phases and categories are
    escaped."""
    peak = max([max(b.estimated or Decimal(0), b.realized) for b in bars] + [Decimal(0)])
    if peak <= 0:
        return ""
    step = nice_step(peak)
    axis_max = step * (peak / step).to_integral_value(rounding=ROUND_CEILING)
    left, width, group, top = 110, 370, 56, 48
    height = top + group * len(bars) + 10

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="100%" '
        f'preserveAspectRatio="xMinYMin meet" role="img" '
        f'aria-label="estimated vs realized cost per line, {esc(currency)}" class="chart">{LEGEND}'
    ]
    tick, places = Decimal(0), _places(step)
    while tick <= axis_max:
        at = f"{left + float(tick / axis_max) * width:.1f}"
        parts.append(
            f'<line x1="{at}" y1="{top - 8}" x2="{at}" y2="{height - 6}" class="grid"/>'
            f'<text x="{at}" y="{top - 12}" class="tick">{tick:,.{places}f}</text>'
        )
        tick += step
    for i, bar in enumerate(bars):
        y = top + i * group
        parts.append(
            f'<text x="{left - 10}" y="{y + 16}" class="phase">{esc(bar.phase)}</text>'
            f'<text x="{left - 10}" y="{y + 32}" class="category">{esc(bar.category)}</text>'
        )
        if bar.estimated is not None:
            end = left + float(max(bar.estimated, Decimal(0)) / axis_max) * width
            parts.append(
                f'<rect x="{left}" y="{y}" width="{end - left:.1f}" height="18" class="est"/>'
                f'<text x="{end + 6:.1f}" y="{y + 14}">{bar.estimated_text}</text>'
            )
        else:
            parts.append(f'<text x="{left + 6}" y="{y + 14}" class="none">{bar.estimated_text}</text>')
        end = left + float(max(bar.realized, Decimal(0)) / axis_max) * width
        parts.append(
            f'<rect x="{left}" y="{y + 22}" width="{end - left:.1f}" height="18" '
            f'class="{"over" if bar.over else "real"}"/>'
            f'<text x="{end + 6:.1f}" y="{y + 36}">{bar.realized_text}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:62rem;color:#1d2430;
padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.25rem;overflow-wrap:anywhere}h2{font-size:1.15rem;margin-top:2rem;
border-bottom:1px solid #e3e7ee;padding-bottom:.2rem}
p,li{overflow-wrap:anywhere}
.meta{color:#4a5568;margin:.1rem 0}
.banner{padding:.6rem .9rem;border-radius:6px;margin:1rem 0;font-weight:600}
.banner.provisional{background:#fff4e5;color:#8a4b00;border:1px solid #f0c36d}
.banner.complete{background:#f5f7fa;color:#1d2430;border:1px solid #e3e7ee}
.banner.failed{background:#fdecea;color:#8c1d13;border:1px solid #f1a9a0}
.kpis{display:flex;gap:1rem;margin:1rem 0;flex-wrap:wrap}
.kpi{border:1px solid #e3e7ee;border-radius:8px;padding:.6rem 1rem;min-width:9rem}
.kpi .label{font-size:.8rem;color:#5b6577;text-transform:uppercase;letter-spacing:.04em}
.kpi .value{font-size:1.35rem;font-weight:650;font-variant-numeric:tabular-nums}
.kpi .value.bad{color:#b42318}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}
td,th{border-bottom:1px solid #e3e7ee;padding:.3rem .7rem;text-align:left}
th{background:#f5f7fa;font-weight:600}td.num,th.num{text-align:right;white-space:nowrap}
tr.total td{font-weight:650;border-top:2px solid #9aa5b5}
svg.chart{display:block;max-width:660px;height:auto}
.chart text{font-size:12px;fill:#1d2430}.chart .phase{text-anchor:end;font-weight:600;font-size:13px}
.chart .category{text-anchor:end;fill:#5b6577}
.chart .tick{text-anchor:middle;fill:#5b6577;font-size:11px}.chart .grid{stroke:#e3e7ee}
.chart .est{fill:#b8c7e0}.chart .real{fill:#2f5d9e}.chart .over{fill:#b42318}.chart .none{fill:#8a94a6}
.empty{color:#5b6577;font-style:italic}
.small{color:#5b6577;font-size:.85rem}
ul.missing li{color:#8a4b00}
"""
