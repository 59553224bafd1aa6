"""Read-side commands: report, reconcile, export, labels, budgets."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import click
import polars as pl

from trainledger.cli.context import Context
from trainledger.cli.options import PERIOD
from trainledger.core.errors import ExitCode, TrainledgerError
from trainledger.core.files import safe_text, write_atomic
from trainledger.core.money import fmt
from trainledger.outputs import export as export_module
from trainledger.outputs.tables import table
from trainledger.reports import budgets as budgets_module
from trainledger.reports import coverage, realize
from trainledger.reports import reconcile as reconcile_module
from trainledger.warehouse.connection import open_warehouse


def _emit(text: str, out: str | None) -> None:
    if out:
        write_atomic(Path(out), text)
        click.echo(f"wrote {out}", err=True)
    else:
        click.echo(text, nl=not text.endswith("\n"))


@click.command()
@click.option(
    "--by",
    default="project,phase,method,category",
    show_default=True,
    help="Comma-separated dimensions: project, phase, method, experiment, category, rule, provider, "
    "service, account, period, waste (idle, failed, rerun, unused-commitment, shared, unattributed, "
    "productive).",
)
@click.option(
    "--granularity",
    type=click.Choice(["hour", "day", "month"]),
    default=None,
    help="Add a UTC time column: cost counts where its charge period starts.",
)
@click.option(
    "--since",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Charges starting on or after this UTC date.",
)
@click.option(
    "--until", type=click.DateTime(["%Y-%m-%d"]), default=None, help="Charges starting before this UTC date."
)
@click.option(
    "--format", "fmt_", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True
)
@click.option(
    "--with-metrics", is_flag=True, help="Add metric gains and cost per point (by method/experiment)."
)
@click.option("--shape", is_flag=True, help="Peak vs average spend per bucket.")
@click.pass_obj
def report(
    obj: Context,
    by: str,
    granularity: str | None,
    since: object,
    until: object,
    fmt_: str,
    with_metrics: bool,
    shape: bool,
) -> None:
    """Realized cost (EffectiveCost) by any dimensions."""
    columns = realize.parse_dimensions(by)
    since_d = since.date() if since else None  # type: ignore[attr-defined]
    until_d = until.date() if until else None  # type: ignore[attr-defined]
    if with_metrics:
        _report_benefit(obj, columns, since_d, until_d, fmt_)
        return
    if shape:
        _report_shape(obj, columns, granularity, since_d, until_d, fmt_)
        return
    with open_warehouse(obj.config, write=False) as con:
        frame = realize.cost_frame(con, columns, granularity, since_d, until_d)
    _print_frame(frame, fmt_)


def _report_benefit(
    obj: Context, columns: list[str], since: date | None, until: date | None, fmt_: str
) -> None:
    """``report --with-metrics``: the method cost-benefit table (by method and/or experiment)."""
    from trainledger.reports import benefit

    if not columns or any(c not in ("method", "experiment_id") for c in columns):
        raise TrainledgerError("--with-metrics reports --by method and/or experiment, nothing else")
    # By method: each method's row followed by its experiments; by experiment alone: the experiments.
    wanted = {"method", "experiment"} if "method" in columns else {"experiment"}
    with open_warehouse(obj.config, write=False) as con:
        rows = [r for r in benefit.cost_benefit(con, since, until) if r.level in wanted]
    if fmt_ == "json":
        click.echo(json.dumps({"note": benefit.NOTE, "rows": [r.to_json() for r in rows]}, indent=2))
        return
    if fmt_ == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        header = list(rows[0].to_json()) if rows else list(benefit.Benefit.__dataclass_fields__)
        writer.writerow(header)
        for r in rows:
            writer.writerow(
                [
                    "" if v is None else (str(v) if k in benefit.NUMERIC else safe_text(str(v)))
                    for k, v in r.to_json().items()
                ]
            )
        click.echo(out.getvalue(), nl=False)
        return

    def points(value: Decimal | None) -> str:
        return "-" if value is None else f"{value:+.2f}"

    table_rows = [
        (
            r.method or "-",
            f"all ({r.experiments})" if r.level == "method" else r.experiment_id,
            r.status or "",
            r.currency,
            r.cost,
            points(r.target_gain),
            points(r.general_change),
            r.cost_per_point,
            "-" if r.eval_share is None else f"{r.eval_share:.1%}",
        )
        for r in rows
    ]
    headers = [
        "method",
        "experiment",
        "status",
        "currency",
        "cost",
        "target gain",
        "general change",
        "cost per point",
        "eval share",
    ]
    click.echo(table(headers, table_rows, ["cost", "cost per point"]))
    click.echo(benefit.NOTE)


def _report_shape(
    obj: Context,
    columns: list[str],
    granularity: str | None,
    since: date | None,
    until: date | None,
    fmt_: str,
) -> None:
    from trainledger.reports import shape as shape_module

    with open_warehouse(obj.config, write=False) as con:
        unit, found = shape_module.shape(con, columns, granularity, since, until)
        gpu = shape_module.gpu_hours(con)
    data = [r.to_json() for r in found]
    if fmt_ == "json":
        click.echo(
            json.dumps(
                {
                    "bucket": unit,
                    "rows": data,
                    "gpu_hours": [
                        {k: (str(v) if isinstance(v, Decimal) else v) for k, v in g.items()} for g in gpu
                    ],
                },
                indent=2,
            )
        )
        return
    if fmt_ == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        headers = [
            *columns,
            "currency",
            "buckets",
            "peak",
            "peak_at",
            "average",
            "peak_to_average",
            "not_time_resolved",
        ]
        writer.writerow(headers)
        for row in data:
            writer.writerow([safe_text("" if row[h] is None else str(row[h])) for h in headers])
        click.echo(out.getvalue(), nl=False)
        return
    click.echo(f"Spend per {unit} (EffectiveCost): peak vs average, idle {unit}s included")
    rows = [
        (
            *r.keys.values(),
            r.currency,
            r.buckets,
            r.peak,
            r.peak_at,
            r.average.quantize(Decimal("0.01")),
            "-" if r.ratio is None else f"{r.ratio:f}x",
            r.unresolved,
        )
        for r in found
    ]
    click.echo(
        table(
            [*columns, "currency", f"{unit}s", "peak", "peak at", "average", "peak/avg", "not time-resolved"],
            rows,
            ["peak", "average", "not time-resolved"],
        )
    )
    if gpu:
        click.echo("")
        click.echo(
            "GPU hours: in use (experiment log) vs provisioned (billed hours of those machines x GPUs)"
        )
        click.echo(
            table(
                ["project", "method", "in use", "provisioned"],
                [(g["project"], g["method"], g["gpu_hours_in_use"], g["gpu_hours_provisioned"]) for g in gpu],
            )
        )


def _print_frame(frame: pl.DataFrame, fmt_: str) -> None:
    headers = frame.columns
    records = frame.rows()
    if fmt_ == "json":
        data = [
            {
                h: (fmt(v) if isinstance(v, Decimal) else (v.isoformat() if hasattr(v, "isoformat") else v))
                for h, v in zip(headers, r, strict=True)
            }
            for r in records
        ]
        click.echo(json.dumps(data, indent=2))
    elif fmt_ == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        for r in records:
            writer.writerow(
                [fmt(v) if isinstance(v, Decimal) else safe_text("" if v is None else str(v)) for v in r]
            )
        click.echo(out.getvalue(), nl=False)
    else:
        money = [h for h in headers if h.endswith("_cost")]
        click.echo(table(headers, records, money))
        totals = {
            c: sum((Decimal(v) for v in frame[c].to_list() if v is not None), Decimal(0)) for c in money
        }
        currencies = sorted(set(frame["currency"].to_list())) if frame.height else []
        if len(currencies) == 1:
            click.echo(
                "total " + "  ".join(f"{c}={fmt(v, 2)}" for c, v in totals.items()) + f" {currencies[0]}"
            )


@click.command()
@click.argument("experiment_id")
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["table", "json", "markdown", "html"]),
    default="table",
    show_default=True,
)
@click.option(
    "--out", type=click.Path(dir_okay=False), default=None, help="Write to this file instead of stdout."
)
@click.pass_obj
def reconcile(obj: Context, experiment_id: str, fmt_: str, out: str | None) -> None:
    """Estimated vs realized cost of one experiment, by phase and category."""
    from trainledger.outputs import postmortem

    with open_warehouse(obj.config, write=False) as con:
        result = reconcile_module.reconcile(con, experiment_id)
    if fmt_ == "json":
        text = json.dumps(result.to_json(), indent=2) + "\n"
    elif fmt_ == "markdown":
        text = postmortem.markdown(result)
    elif fmt_ == "html":
        text = postmortem.html(result)
    else:
        text = postmortem.text(result)
    _emit(text, out)


@click.command()
@PERIOD
@click.option("--by", default=None, help="Keep only these dimensions (others summed, their columns empty).")
@click.option(
    "--format", "fmt_", type=click.Choice(["csv", "xlsx", "focus"]), default="csv", show_default=True
)
@click.option(
    "--cents",
    is_flag=True,
    help="Money rounded to the cent per row; each period/account/currency total still ties to the invoice.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    required=True,
    help="File to write (.parquet: parquet, for focus).",
)
@click.pass_obj
def export(obj: Context, period: str | None, by: str | None, fmt_: str, cents: bool, out: str) -> None:
    """Finance export of one billing period's allocations."""
    if period is None:
        raise click.UsageError("Missing option '--period'.")
    if fmt_ == "focus":
        from trainledger.outputs import export_focus

        if by or cents:
            raise click.UsageError(
                f"{'--by' if by else '--cents'} applies to --format csv and xlsx; a FOCUS file has one row "
                "per allocation share, at full precision"
            )
        with open_warehouse(obj.config, write=False) as con:
            export_focus.write(con, period, Path(out))
        click.echo(f"wrote {out}", err=True)
        return
    with open_warehouse(obj.config, write=False) as con:
        write = export_module.export_xlsx if fmt_ == "xlsx" else export_module.export_csv
        data = write(con, period, by, cents)
    write_atomic(Path(out), data)
    click.echo(f"wrote {out}", err=True)


@click.command()
@PERIOD
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_obj
def labels(obj: Context, period: str | None, fmt_: str) -> None:
    """Tag coverage and bad labels, by the cost they carry."""
    with open_warehouse(obj.config, write=False) as con:
        result = coverage.coverage(con, period)
    if fmt_ == "json":

        def clean(rows: list[dict[str, object]]) -> list[dict[str, object]]:
            return [{k: fmt(v) if isinstance(v, Decimal) else v for k, v in r.items()} for r in rows]

        click.echo(
            json.dumps(
                {
                    "periods": result.periods,
                    "coverage": clean(result.by_rule),
                    "problems": clean(result.problems),
                    "unknown_services": clean(result.unknown_services),
                },
                indent=2,
            )
        )
        return
    click.echo(
        f"Tag coverage for {', '.join(result.periods) or 'no periods'} "
        "(EffectiveCost; share of the currency's cost before credits)"
    )
    rows = [
        (
            r["rule"],
            r["currency"],
            r["charges"],
            r["effective_cost"],
            "-" if r["share_pct"] is None else f"{r['share_pct'].quantize(Decimal('0.1')):f}%",
        )
        for r in result.by_rule
    ]
    click.echo(table(["rule", "currency", "charges", "effective_cost", "share"], rows, ["effective_cost"]))
    click.echo("")
    if result.problems:
        click.echo("Bad or conflicting labels")
        rows = [
            (r["status"], r["problem"], r["example_resource"], r["charges"], r["effective_cost"])
            for r in result.problems
        ]
        click.echo(
            table(
                ["status", "problem", "example resource", "charges", "effective_cost"],
                rows,
                ["effective_cost"],
            )
        )
    else:
        click.echo("No bad or conflicting labels.")
    if result.unknown_services:
        click.echo("")
        click.echo("Services with no cost category (counted as `other`)")
        services = [
            (r["provider"], r["service_name"], r["usage_type"], r["effective_cost"])
            for r in result.unknown_services
        ]
        click.echo(
            table(["provider", "service", "usage type", "effective_cost"], services, ["effective_cost"])
        )


@click.command()
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option(
    "--alerts-out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the crossed thresholds as alert JSON to this file ([] when none).",
)
@click.pass_obj
@click.pass_context
def budgets(ctx: click.Context, obj: Context, fmt_: str, alerts_out: str | None) -> None:
    """Spend against [[budgets]]; exit 2 when a threshold is crossed."""
    with open_warehouse(obj.config, write=False) as con:
        statuses = budgets_module.status(con, obj.config)
        shares = budgets_module.share_status(con, obj.config)
    alerts = budgets_module.alerts(statuses) + budgets_module.share_alerts(shares)
    if fmt_ == "json":
        click.echo(json.dumps([s.to_json() for s in statuses] + [s.to_json() for s in shares], indent=2))
    elif not statuses and not shares:
        click.echo("No [[budgets]] with an amount in the config.")
    elif statuses:
        rows = [
            (
                s.budget,
                s.scope_text,
                s.period,
                s.currency,
                s.amount,
                s.spent,
                s.amount - s.spent,
                f"{s.used:.1%}",
                ", ".join(f"{t:.0%}" for t in s.thresholds),
                ", ".join(f"{t:.0%}" for t in s.crossed) or "-",
            )
            for s in statuses
        ]
        click.echo(
            table(
                [
                    "budget",
                    "scope",
                    "period",
                    "currency",
                    "amount",
                    "spent",
                    "remaining",
                    "used",
                    "thresholds",
                    "crossed",
                ],
                rows,
                ["amount", "spent", "remaining"],
            )
        )
    if shares and fmt_ != "json":
        share_rows = [
            (
                s.budget,
                ", ".join(f"{k}={v}" for k, v in s.scope.items()) or "everything",
                s.period,
                s.phase,
                s.phase_spent,
                s.total,
                f"{s.share:.1%}",
                f"{s.limit:.0%}",
                "EXCEEDED" if s.exceeded else "ok",
            )
            for s in shares
        ]
        click.echo("")
        click.echo(
            table(
                [
                    "budget",
                    "scope",
                    "period",
                    "phase",
                    "phase_spent",
                    "spent",
                    "share",
                    "max share",
                    "status",
                ],
                share_rows,
                ["phase_spent", "spent"],
            )
        )
    for alert in alerts:
        click.echo(f"trainledger: alert: {alert['message']}", err=True)
    if alerts_out:
        budgets_module.write_alerts(Path(alerts_out), alerts)
    if alerts:
        ctx.exit(int(ExitCode.BUDGET))
