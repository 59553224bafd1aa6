"""The site's experiment pages: the experiments table (each row a post-mortem's headline figures), the
projects index and each project's page with its experiments."""

from __future__ import annotations

from dataclasses import dataclass

from trainledger.outputs.site.data import WASTE, Experiments, ProjectPage, Row
from trainledger.outputs.site.layout import Col, Rendered, cli, esc, rendered, slug, table, when
from trainledger.outputs.site.overview import bar_chart, money_table
from trainledger.reports.reconciliation import Reconciliation

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
def experiment_row(r: Reconciliation) -> list[object]:
    return [
        (r.experiment_id, f"{POSTMORTEMS}{slug(r.experiment_id)}.html"),
        r.project,
        r.method,
        r.status,
        when(r.started_at),
        r.currency,
        r.headline.estimated,
        r.realized_total,
        r.variance,
        r.hidden_cost,
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
