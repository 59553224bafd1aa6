"""The pages after the overview: projects, experiments, methods, waste and labels."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainledger.attribution.waste import FAILED_STATUSES
from trainledger.outputs.site import charts
from trainledger.outputs.site.data import WASTE, Experiments, ProjectPage, Row, WastePage
from trainledger.outputs.site.layout import Col, Rendered, cli, esc, rendered, slug, table, when
from trainledger.outputs.site.overview import bar_chart, currencies, money_table
from trainledger.reports.benefit import NOTE, Benefit
from trainledger.reports.coverage import Coverage
from trainledger.reports.reconcile import Reconciliation

EXPERIMENT_COLS = [
    Col("experiment", "link"),
    Col("project"),
    Col("method"),
    Col("status"),
    Col("start (UTC)"),
    Col("currency"),
    Col("estimated", "money"),
    Col("realized", "money"),
    Col("variance", "money"),
    Col("waste", "money"),
    Col("provisional"),
]
# What to do about each kind of bad label (`labels` lists them; attribution keeps their cost).
LABEL_FIXES = {
    "unknown-label": "Use a value listed in [labels] (phases, methods), or map it in [labels.aliases]; "
    "then re-run `trainledger attribute`.",
    "conflict": "The tags disagree (e.g. cost-label vs project/phase/method): correct the resource's tags "
    "so they name one project, phase and method.",
    "partial": "Add the missing tags (project, phase and method) to the resource, or a complete cost-label.",
}


def experiment_row(r: Reconciliation) -> list[object]:
    estimated = r.estimated_total if any(x.estimated is not None for x in r.rows) else None
    realized = r.realized_total
    return [
        (r.experiment_id, f"{POSTMORTEMS}{slug(r.experiment_id)}.html"),
        r.project,
        r.method,
        r.status,
        when(r.started_at),
        r.currency,
        estimated,
        realized,
        None if estimated is None else realized - estimated,
        r.idle + r.failed + r.unused_commitment,
        "yes" if r.provisional else "no",
    ]


POSTMORTEMS = "experiments/"
# A rendered row's only link is its post-mortem's (text cells are escaped): from a project's page, one
# folder down, it starts one folder up.
_LINK, _LINK_UP = f'<a href="{POSTMORTEMS}', f'<a href="../{POSTMORTEMS}'


@dataclass
class ExperimentTable:
    """The experiments table's rows, rendered once for the experiments page and shown again, relinked, on
    their project's page (tens of thousands of rows in a large month)."""

    values: list[list[object]]
    html: Rendered
    by_project: dict[str | None, Rendered]


def experiment_table(found: Experiments) -> ExperimentTable:
    values = [experiment_row(r) for r in found.rows]
    html = rendered(EXPERIMENT_COLS, values)
    by_project: dict[str | None, Rendered] = {}
    for r, row in zip(found.rows, html, strict=True):
        by_project.setdefault(r.project, Rendered()).append(row.replace(_LINK, _LINK_UP, 1))
    return ExperimentTable(values, html, by_project)


def _select(name: str, label: str, column: int, values: list[str]) -> str:
    options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    return (
        f'<label>{esc(label)}<select name="{name}" data-column="{column}">'
        f'<option value="">all</option>{options}</select></label>'
    )


def experiments_page(found: Experiments, rows: ExperimentTable) -> str:
    values = {i: sorted({str(row[i]) for row in rows.values if row[i] is not None}) for i in (1, 2, 3, 10)}
    shown = (
        f"All {found.total} experiments, newest first."
        if len(found.rows) == found.total
        else f"The {len(found.rows)} most recently started of {found.total} experiments (set with "
        "<code>trainledger site --experiments N</code>); every page's totals include them all."
    )
    form = (
        '<form class="filters" data-table="experiments" role="search">'
        '<label>Search<input type="search" name="q" placeholder="id, project, method..."></label>'
        + _select("project", "project", 1, values[1])
        + _select("method", "method", 2, values[2])
        + _select("status", "status", 3, values[3])
        + _select("provisional", "provisional", 10, values[10])
        + '<output aria-live="polite"></output></form>'
    )
    return (
        f'<p class="lead">{shown} Click a column header to sort; each id opens its post-mortem (the '
        "numbers of <code>trainledger reconcile ID</code>). Estimated and realized are in the experiment's "
        "currency; waste is idle time on its machines plus the cost of a failed run.</p>"
        + form
        + table(
            "Experiments: estimated vs realized",
            EXPERIMENT_COLS,
            rows.html,
            ident="experiments",
            sortable=True,
        )
    )


def projects_index(names: list[str], by_project: list[Row]) -> str:
    rows = [
        [(p, f"projects/{slug(p)}.html"), r["currency"], r["effective_cost"]]
        for p in names
        for r in by_project
        if r["project"] == p
    ]
    return (
        '<p class="lead">Every billing period held, by project (EffectiveCost).</p>'
        + table(
            "Projects",
            [Col("project", "link"), Col("currency"), Col("effective", "money")],
            rows,
            ident="projects",
            sortable=True,
        )
        + cli("trainledger report --by project")
    )


def project_page(p: ProjectPage, experiments: Rendered) -> str:
    """``experiments``: the project's rows of the experiments table (``ExperimentTable.by_project``)."""
    wasted = [r for r in p.waste if r["waste"] in WASTE]
    return "\n".join(
        [
            '<p class="lead">Every billing period held (EffectiveCost unless a column says otherwise).</p>',
            "<h2>Phases × categories</h2>",
            money_table(
                "By phase and cost category",
                p.phases,
                [("phase", "phase"), ("cost_category", "category")],
                ident="phases",
            ),
            cli(f"trainledger report --by project,phase,category   (rows of {p.name})"),
            "<h2>Month over month</h2>",
            '<div class="grid"><div>',
            money_table("Per billing period", p.monthly, [("billing_period", "period")], ident="monthly"),
            cli(f"trainledger report --by project,period   (rows of {p.name})"),
            "</div><div>",
            bar_chart("Cost per billing period", p.monthly, "billing_period"),
            "</div></div>",
            "<h2>Waste</h2>",
            money_table("Hidden cost by class", wasted, [("waste", "class")], ident="waste"),
            cli(f"trainledger report --by project,waste   (rows of {p.name})"),
            "<h2>Experiments</h2>",
            table(
                "Experiments of the project",
                EXPERIMENT_COLS,
                experiments,
                ident="experiments",
                sortable=True,
            ),
        ]
    )


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
