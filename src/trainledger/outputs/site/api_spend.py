"""The site's "API spend" page: LLM API spend (judge calls, synthetic data, evaluations on OpenAI and
Anthropic) by project and model, per billing period, from ``reports/api_spend.py``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from trainledger.outputs.site.data import Cube
from trainledger.outputs.site.layout import cli, esc
from trainledger.outputs.site.overview import bar_chart, money_table
from trainledger.reports import api_spend
from trainledger.warehouse.connection import Connection

PAGE = "api-spend.html"
TITLE = "LLM API spend by project and model"


def rows(con: Connection, cube: Cube) -> list[dict[str, Any]]:
    """The report's rows; without a model API among the cube's providers, none, without reading the
    allocations again (a bill without API sources costs the site nothing more)."""
    if not api_spend.any_api_spend(r["provider"] for r in cube.cells(["billing_period", "provider"])):
        return []
    return api_spend.by_project_and_model(con)


def render(rows: list[dict[str, Any]]) -> str:
    """A table per billing period (newest first) with a chart of its projects; a note when there is none."""
    if not rows:
        return (
            '<p class="lead">No LLM API spend: add an <code>openai-costs</code> or <code>anthropic-costs</code> '
            'source (README "LLM API spend").</p>'
        )
    parts = [
        '<p class="lead">What the model APIs billed (OpenAI, Anthropic), by project and model: the model a '
        "bill names, else its line item. Every billing period held.</p>"
    ]
    for period in sorted({r["billing_period"] for r in rows}, reverse=True):
        mine = [r for r in rows if r["billing_period"] == period]
        by_project: dict[tuple[Any, ...], dict[str, Any]] = {}
        for r in mine:
            into = by_project.setdefault(
                (r["project"], r["currency"]),
                {"project": r["project"], "currency": r["currency"], "effective_cost": Decimal(0)},
            )
            into["effective_cost"] += r["effective_cost"]
        parts += [
            f"<h2>{esc(period)}</h2>",
            bar_chart(f"LLM API spend by project, {period}", list(by_project.values()), "project"),
            money_table(
                f"LLM API spend by project and model, {period}",
                mine,
                [("provider", "provider"), ("project", "project"), ("model", "model")],
                ident=f"api-spend-{period}",
            ),
            cli(f"trainledger report --period {period} --by provider,project   (per project, all models)"),
        ]
    return "\n".join(parts)
