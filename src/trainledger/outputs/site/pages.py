"""The site's pages of methods (cost against benefit), waste and labels."""

from __future__ import annotations

from decimal import Decimal

from trainledger.attribution.waste import FAILED_STATUSES
from trainledger.outputs.site import charts
from trainledger.outputs.site.data import WASTE, WastePage
from trainledger.outputs.site.layout import Col, cli, esc, table
from trainledger.outputs.site.overview import currencies, money_table
from trainledger.reports.benefit import NOTE, Benefit
from trainledger.reports.coverage import Coverage

LABEL_FIXES = {
    "unknown-label": "Use a value listed in [labels] (phases, methods), or map it in [labels.aliases]; "
    "then re-run `trainledger attribute`.",
    "conflict": "The tags disagree (e.g. cost-label vs project/phase/method): correct the resource's tags "
    "so they name one project, phase and method.",
    "partial": "Add the missing tags (project, phase and method) to the resource, or a complete cost-label.",
}


def methods_page(rows: list[Benefit]) -> str:
    cols = [
        Col("method"),
        Col("experiment"),
        Col("status"),
        Col("currency"),
        Col("cost", "money"),
        Col("target gain (points)", "number"),
        Col("general change (points)", "number"),
        Col("cost per point", "money"),
        Col("eval share", "percent"),
        Col("eval share vs 20–40%"),
    ]

    def band(share: Decimal | None) -> str:
        if share is None:
            return "-"
        return "below" if share < Decimal("0.2") else "above" if share > Decimal("0.4") else "within"

    body = [
        [
            r.method or "-",
            f"all ({r.experiments})" if r.level == "method" else r.experiment_id,
            r.status,
            r.currency,
            r.cost,
            r.target_gain,
            r.general_change,
            r.cost_per_point,
            r.eval_share,
            band(r.eval_share),
        ]
        for r in rows
    ]
    methods = [r for r in rows if r.level == "method"]
    figures = []
    for currency in sorted({r.currency for r in methods}):
        mine = [r for r in methods if r.currency == currency and r.cost_per_point is not None]
        trace = charts.bars(
            "cost per point",
            [r.method or "-" for r in mine],
            [r.cost_per_point for r in mine if r.cost_per_point is not None],
            currency,
        )
        figures.append(
            charts.figure(
                f"Cost per point of target-metric gain ({currency})", [trace], f"{currency} per point gained"
            )
        )
    shares = [r for r in methods if r.eval_share is not None]
    if shares:
        trace = charts.bars(
            "eval share",
            [r.method or "-" for r in shares],
            [r.eval_share * 100 for r in shares if r.eval_share is not None],
            "%",
        )
        trace["hovertemplate"] = "%{x}<br>eval share: %{y:.1f}%<extra></extra>"
        band_shape = {
            "type": "rect",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "yref": "y",
            "y0": 20,
            "y1": 40,
            "fillcolor": "#1f7a4d",
            "opacity": 0.12,
            "line": {"width": 0},
            "layer": "below",
        }
        figures.append(
            charts.figure(
                "Evaluation share of cost, against the common 20–40% band",
                [trace],
                "% of the method's cost",
                shapes=[band_shape],
            )
        )
    return (
        f'<p class="lead">{esc(NOTE)}.</p><div class="grid">'
        + "".join(f"<div>{f}</div>" for f in figures)
        + "</div>"
        + table("Method cost-benefit", cols, body, ident="methods")
        + cli("trainledger report --by method --with-metrics")
    )


def waste_page(w: WastePage) -> str:
    parts = [
        '<p class="lead">Hidden cost: idle machines, failed runs, re-runs of failed runs (rework) and unused '
        "commitments (Savings Plans, reservations), EffectiveCost, every billing period held.</p>",
        "<h2>By project</h2>",
    ]
    for currency in currencies(w.by_project):
        traces = []
        for cls in WASTE:
            mine = [r for r in w.by_project if r["waste"] == cls and r["currency"] == currency]
            if mine:
                traces.append(
                    charts.bars(
                        cls,
                        [r["project"] or "(no project)" for r in mine],
                        [r["effective_cost"] for r in mine],
                        currency,
                    )
                )
        parts.append(
            charts.figure(
                f"Waste by project ({currency})", traces, f"{currency}, EffectiveCost", stacked=True
            )
        )
    parts.append(
        money_table(
            "Waste by class and project",
            w.by_project,
            [("waste", "class"), ("project", "project")],
            ident="by-project",
        )
    )
    parts.append(cli("trainledger report --by waste,project"))
    parts.append("<h2>By week</h2>")
    for currency in currencies(w.by_week):
        traces = []
        for cls in WASTE:
            mine = [r for r in w.by_week if r["waste"] == cls and r["currency"] == currency]
            if mine:
                traces.append(
                    charts.bars(cls, [r["week"] for r in mine], [r["effective_cost"] for r in mine], currency)
                )
        parts.append(
            charts.figure(
                f"Waste per week starting Monday ({currency})",
                traces,
                f"{currency} per week, EffectiveCost",
                "week (UTC, Monday)",
                stacked=True,
                categories=sorted({r["week"] for r in w.by_week}),
            )
        )
    parts.append(
        money_table("Waste by week", w.by_week, [("week", "week of"), ("waste", "class")], ident="by-week")
    )
    parts.append(cli("trainledger report --by waste --granularity day   (days summed Monday to Sunday)"))
    parts.append("<h2>Top offenders</h2>")
    parts.append(
        money_table(
            "Largest hidden costs by class, project and experiment",
            w.offenders,
            [("waste", "class"), ("project", "project"), ("experiment_id", "experiment")],
            ident="offenders",
        )
    )
    parts.append(cli("trainledger report --by waste,project,experiment"))
    parts.append(
        f'<p class="cli">Failed means status {esc(", ".join(FAILED_STATUSES))} in the experiment log.</p>'
    )
    return "\n".join(parts)


def labels_page(c: Coverage) -> str:
    total = sum((r["effective_cost"] for r in c.by_rule), Decimal(0))
    coverage_rows = [
        [
            r["rule"],
            r["currency"],
            r["charges"],
            r["effective_cost"],
            (r["effective_cost"] / total) if total else None,
        ]
        for r in c.by_rule
    ]
    problems = [
        [
            r["status"],
            r["problem"],
            r["example_resource"],
            r["currency"],
            r["charges"],
            r["effective_cost"],
            LABEL_FIXES.get(r["status"], "Correct the resource's tags, then re-run `trainledger attribute`."),
        ]
        for r in c.problems
    ]
    services = [
        [r["provider"], r["service_name"], r["usage_type"], r["effective_cost"]] for r in c.unknown_services
    ]
    figures = [
        charts.figure(
            f"Cost by how it was attributed ({cur})",
            [
                charts.bars(
                    "effective cost",
                    [r["rule"] for r in c.by_rule if r["currency"] == cur],
                    [r["effective_cost"] for r in c.by_rule if r["currency"] == cur],
                    cur,
                )
            ],
            f"{cur}, EffectiveCost",
        )
        for cur in currencies(c.by_rule)
    ]
    return "\n".join(
        [
            f'<p class="lead">Tag coverage for {esc(", ".join(c.periods) or "no periods")}, by the cost '
            "each rule carries, and the labels to fix.</p>",
            '<div class="grid"><div>',
            table(
                "Tag coverage by rule",
                [
                    Col("rule"),
                    Col("currency"),
                    Col("charges", "number"),
                    Col("effective", "money"),
                    Col("share", "percent"),
                ],
                coverage_rows,
                ident="coverage",
            ),
            "</div><div>",
            *figures,
            "</div></div>",
            "<h2>Bad or conflicting labels</h2>",
            table(
                "Labels to fix",
                [
                    Col("status"),
                    Col("problem"),
                    Col("example resource"),
                    Col("currency"),
                    Col("charges", "number"),
                    Col("effective", "money"),
                    Col("fix"),
                ],
                problems,
                ident="problems",
            ),
            "<h2>Services with no cost category</h2>",
            table(
                "Counted as other",
                [Col("provider"), Col("service"), Col("usage type"), Col("effective", "money")],
                services,
                ident="services",
            ),
            cli("trainledger labels"),
        ]
    )
