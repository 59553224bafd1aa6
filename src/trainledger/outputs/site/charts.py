"""Interactive charts with Plotly.js (hover values, legends that toggle series), copied once from the
installed ``plotly`` package beside the pages, so a page needs no network.

A chart is a Plotly figure (data + layout) written into the page as JSON; ``assets/site.js`` draws it.
Money goes in as exact decimal text (Plotly reads numeric strings as numbers), never through a float here.
Each chart's axis names its unit and currency, and each chart sits next to a table of the same numbers.
"""

from __future__ import annotations

import html
import importlib.util
import json
import shutil
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainledger.core.errors import TrainledgerError
from trainledger.core.money import fmt

PALETTE = ["#2f5d9e", "#c2410c", "#1f7a4d", "#7c3aed", "#b7791f", "#0e7490", "#be185d", "#4b5563"]
_counter = [0]


def plotly_js() -> Path:
    """plotly.min.js from the installed plotly wheel."""
    spec = importlib.util.find_spec("plotly")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / "package_data" / "plotly.min.js"
        if path.is_file():
            return path
    raise TrainledgerError(
        "the site's charts need Plotly.js from the plotly package: pip install 'trainledger[site]'"
    )


def copy_assets(assets: Path) -> None:
    assets.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js(), assets / "plotly.min.js")
    static = Path(__file__).with_name("static")
    for name in ("site.css", "site.js"):
        shutil.copyfile(static / name, assets / name)


def _num(value: Decimal) -> str:
    return fmt(value)


def figure(
    title: str,
    traces: list[dict[str, Any]],
    y_title: str,
    x_title: str = "",
    *,
    stacked: bool = False,
    shapes: Sequence[dict[str, Any]] = (),
    horizontal: bool = False,
    categories: Sequence[str] = (),
) -> str:
    """The HTML of one chart: a captioned figure holding its Plotly spec; ``categories`` fixes the order
    of the labels (else the order the traces first name them)."""
    value_axis = {"title": {"text": y_title}, "tickformat": ",.2~f", "zeroline": True, "automargin": True}
    # Categories read top to bottom on a horizontal chart, as in the table beside it.
    label_axis = {"title": {"text": x_title}, "automargin": True, "type": "category"}
    if horizontal:
        label_axis["autorange"] = "reversed"
    if categories:
        label_axis.update(categoryorder="array", categoryarray=list(categories))
    layout: dict[str, Any] = {
        "barmode": "stack" if stacked else "group",
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
        "legend": {"orientation": "h", "y": -0.25},
        "xaxis": value_axis if horizontal else label_axis,
        "yaxis": label_axis if horizontal else value_axis,
        "shapes": list(shapes),
        "hovermode": "closest",
        "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12},
        "colorway": PALETTE,
        "height": max(320, 28 * max((len(t.get("y" if horizontal else "x", [])) for t in traces), default=0))
        if horizontal
        else 340,
    }
    _counter[0] += 1
    spec = json.dumps({"data": traces, "layout": layout}, separators=(",", ":"))
    spec = spec.replace("</", "<\\/")
    return (
        f'<figure class="chart-figure"><figcaption>{html.escape(title)}</figcaption>'
        f'<div class="chart" role="img" aria-label="{html.escape(title)}" data-chart="c{_counter[0]}"></div>'
        f'<script type="application/json" id="c{_counter[0]}">{spec}</script></figure>'
    )


def bars(
    name: str,
    labels: Sequence[str],
    values: Sequence[Decimal],
    currency: str,
    *,
    horizontal: bool = False,
) -> dict[str, Any]:
    """One bar series; hover shows the label and the amount to the cent with its currency."""
    amounts = [_num(v) for v in values]
    axis = ("y", "x") if horizontal else ("x", "y")
    return {
        "type": "bar",
        "name": name,
        axis[0]: list(labels),
        axis[1]: amounts,
        "orientation": "h" if horizontal else "v",
        "hovertemplate": f"%{{{axis[0]}}}<br>{html.escape(name)}: %{{{axis[1]}:,.2f}} {currency}<extra></extra>",
    }


def line(name: str, labels: Sequence[str], values: Sequence[Decimal], currency: str) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": name,
        "x": list(labels),
        "y": [_num(v) for v in values],
        "hovertemplate": f"%{{x}}<br>{html.escape(name)}: %{{y:,.2f}} {currency}<extra></extra>",
    }
