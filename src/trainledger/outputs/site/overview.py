"""The overview page of one billing period: totals, how the money is held, trends, budgets."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from trainledger.outputs.site import charts
from trainledger.outputs.site.data import MONEY, Overview, Row
from trainledger.outputs.site.layout import Col, cli, esc, money, table, when

MONEY_COLS = [Col("billed", "money"), Col("effective", "money"), Col("list", "money")]


def currencies(rows: Sequence[Row]) -> list[str]:
    return sorted({r["currency"] for r in rows})


def money_table(caption: str, rows: Sequence[Row], dims: Sequence[tuple[str, str]], ident: str = "") -> str:
    """Rows of ``dims`` + currency + the three money columns, with a total when one currency."""
    cols = [Col(label) for _, label in dims] + [Col("currency"), *MONEY_COLS]
    body = [[r[d] for d, _ in dims] + [r["currency"]] + [r[m] for m in MONEY] for r in rows]
    total = None
    if len(currencies(rows)) == 1 and len(rows) > 1:
        sums = [sum((r[m] for r in rows), Decimal(0)) for m in MONEY]
        total = ["total"] + [""] * (len(dims) - 1) + [rows[0]["currency"], *sums] if dims else None
    return table(caption, cols, body, ident=ident, total=total)


def bar_chart(title: str, rows: Sequence[Row], dim: str, horizontal: bool = False) -> str:
    """One chart per currency of effective cost by ``dim``."""
    out = []
    for currency in currencies(rows):
        mine = [r for r in rows if r["currency"] == currency]
        labels = [str(r[dim]) if r[dim] is not None else "(none)" for r in mine]
        trace = charts.bars(
            "effective cost", labels, [r["effective_cost"] for r in mine], currency, horizontal=horizontal
        )
        out.append(
            charts.figure(
                f"{title} ({currency})", [trace], f"{currency}, EffectiveCost", horizontal=horizontal
            )
        )
    return "".join(out)


def _picker(periods: list[str], current: str, latest: str) -> str:
    links = []
    for p in reversed(periods):
        href = "index.html" if p == latest else f"overview-{p}.html"
        if p == current:
            links.append(f'<a href="{href}" aria-current="page">{esc(p)}</a>')
        else:
            links.append(f'<a href="{href}">{esc(p)}</a>')
    return (
        f'<nav class="picker" aria-label="billing period"><span>Billing period</span>{"".join(links)}</nav>'
    )


def _banner(ov: Overview) -> str:
    if not ov.lagging:
        return (
            f'<div class="banner complete" id="state">Billing for {esc(ov.period)} is complete: every '
            "provider's usage reaches the end of the period.</div>"
        )
    reach = "; ".join(f"{p} through {when(t)} UTC" if t else f"{p}: no usage yet" for p, t in ov.lagging)
    return (
        f'<div class="banner provisional" id="state">Provisional: billing lags ({esc(reach)}), before the '
        f"period ends ({ov.period_end:%Y-%m-%d} 00:00 UTC); late charges may still arrive.</div>"
    )


def _kpis(ov: Overview) -> str:
    cards = []
    for r in ov.totals:
        cards.append(
            f'<div class="kpi"><div class="label">Total {esc(r["currency"])}</div>'
            f'<div class="value" data-currency="{esc(r["currency"])}">{money(r["effective_cost"])}</div></div>'
        )
    for r in ov.held:
        if r["held"] != "attributed":
            cards.append(
                f'<div class="kpi"><div class="label">{esc(r["held"])} {esc(r["currency"])}</div>'
                f'<div class="value">{money(r["effective_cost"])}</div></div>'
            )
    return f'<div class="kpis">{"".join(cards)}</div>'


def _trend(ov: Overview) -> str:
    parts = []
    for currency in currencies(ov.daily):
        days = [r for r in ov.daily if r["currency"] == currency]
        trace = charts.line(
            "effective cost per day", [r["day"] for r in days], [r["effective_cost"] for r in days], currency
        )
        parts.append(
            charts.figure(
                f"Cost per UTC day, {ov.period} ({currency})",
                [trace],
                f"{currency} per day, EffectiveCost",
                "day (UTC, charge start)",
            )
        )
    parts.append("<details><summary>The daily figures as a table</summary>")
    parts.append(money_table("Cost per UTC day", ov.daily, [("day", "day")]))
    parts.append("</details>")
    parts.append(cli(f"trainledger report --by period --granularity day   (rows of {ov.period})"))
    return "".join(parts)


def _budgets(ov: Overview) -> str:
    if not ov.budgets and not ov.shares:
        return "<p>No <code>[[budgets]]</code> for this period in the config.</p>"
    rows = []
    for s in ov.budgets:
        crossed = ", ".join(f"{t:.0%}" for t in s.crossed) or "-"
        rows.append(
            f"<tr><td>{esc(s.budget)}</td><td>{esc(s.scope_text)}</td><td>{esc(s.currency)}</td>"
            f'<td class="num" data-value="{s.amount:f}">{money(s.amount)}</td>'
            f'<td class="num" data-value="{s.spent:f}">{money(s.spent)}</td>'
            f'<td class="num">{money(s.amount - s.spent)}</td>'
            f'<td class="num"><meter min="0" max="1" low="{min(s.thresholds, default=1):f}" high="1" '
            f'optimum="0" value="{min(s.used, Decimal(1)):f}">{s.used:.1%}</meter> {s.used:.1%}</td>'
            f"<td>{esc(', '.join(f'{t:.0%}' for t in s.thresholds))}</td>"
            f'<td class="{"bad" if s.crossed else ""}">{esc(crossed)}</td></tr>'
        )
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in (
            "budget",
            "scope",
            "currency",
            "amount",
            "spent",
            "remaining",
            "burn",
            "thresholds",
            "crossed",
        )
    )
    out = (
        f'<div class="scroll"><table id="budgets"><caption>Budgets of {esc(ov.period)} (EffectiveCost)'
        f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
    if ov.shares:
        share_rows = [
            [
                s.budget,
                s.phase,
                s.currency,
                s.phase_spent,
                s.total,
                s.share,
                s.limit,
                "EXCEEDED" if s.exceeded else "ok",
            ]
            for s in ov.shares
        ]
        out += table(
            "Phase share caps",
            [
                Col("budget"),
                Col("phase"),
                Col("currency"),
                Col("phase spent", "money"),
                Col("spent", "money"),
                Col("share", "percent"),
                Col("max share", "percent"),
                Col("status"),
            ],
            share_rows,
        )
    return out + cli("trainledger budgets")


def render(ov: Overview, periods: list[str], latest: str) -> str:
    p = ov.period
    sections = [
        _picker(periods, p, latest),
        _banner(ov),
        _kpis(ov),
        "<h2>Total by currency</h2>",
        money_table(f"Total of {p} by currency", ov.totals, [], ident="totals"),
        cli(f"trainledger report --by period --format json   (rows of {p})"),
        "<h2>Attributed, idle, shared, unattributed</h2>",
        '<div class="grid"><div>',
        money_table(f"How the cost of {p} is held", ov.held, [("held", "held as")], ident="held"),
        money_table("By allocation rule", ov.by_rule, [("rule", "rule")], ident="by-rule"),
        cli("trainledger report --by period,rule"),
        "</div><div>",
        bar_chart("How the cost is held", ov.held, "held"),
        "</div></div>",
        "<h2>By project</h2>",
        '<div class="grid"><div>',
        money_table(f"Cost of {p} by project", ov.by_project, [("project", "project")], ident="by-project"),
        cli("trainledger report --by period,project"),
        "</div><div>",
        bar_chart("Cost by project", ov.by_project, "project", horizontal=True),
        "</div></div>",
        "<h2>By method and by cost category</h2>",
        '<div class="grid"><div>',
        money_table(f"Cost of {p} by method", ov.by_method, [("method", "method")], ident="by-method"),
        cli("trainledger report --by period,method"),
        bar_chart("Cost by method", ov.by_method, "method"),
        "</div><div>",
        money_table(
            f"Cost of {p} by category", ov.by_category, [("cost_category", "category")], ident="by-category"
        ),
        cli("trainledger report --by period,category"),
        bar_chart("Cost by category", ov.by_category, "cost_category"),
        "</div></div>",
        "<h2>Trend by day</h2>",
        _trend(ov),
        "<h2>Trend by month</h2>",
        bar_chart("Cost per billing period", ov.monthly, "billing_period"),
        money_table("Cost per billing period", ov.monthly, [("billing_period", "period")], ident="monthly"),
        cli("trainledger report --by period"),
        "<h2>Budgets</h2>",
        _budgets(ov),
    ]
    return "\n".join(sections)
