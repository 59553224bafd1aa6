"""Read-side commands: report, reconcile, export, labels, budgets, experiments. Each opens the warehouse,
calls the core, and renders one document. The core (DuckDB, the reports) is imported by the
command that runs, so `--help` and every other command start without it."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from trainledger.cli.context import Context
from trainledger.cli.options import PERIOD, alerts_out, examples, output_format, period, since_option
from trainledger.cli.output import echo, emit, emit_text
from trainledger.core.errors import ExitCode
from trainledger.core.files import write_atomic
from trainledger.outputs.tables import visible_lines
from trainledger.reports.dimensions import dimension_help, parse_dimensions

if TYPE_CHECKING:
    from trainledger.core.config_outputs import FocusVersion


def _date(value: datetime | None) -> date | None:
    return value.date() if value else None


@click.command(
    epilog=examples(
        "trainledger report --by project,phase,method,category --period 2026-11",
        "trainledger report --by waste,project --format csv",
        "trainledger report --by method --with-metrics",
    )
)
@click.option(
    "--by",
    default=None,
    show_default="project,phase,method,category; method with --with-metrics",
    help=dimension_help(),
)
@click.option(
    "--granularity",
    type=click.Choice(["hour", "day", "month"]),
    default=None,
    help="Add a UTC time column: cost counts where its charge period starts.",
)
@since_option("Charges starting on or after this UTC date.")
@click.option(
    "--until", type=click.DateTime(["%Y-%m-%d"]), default=None, help="Charges starting before this UTC date."
)
@period("Only this billing period (as invoiced).")
@output_format("table", "csv", "json")
@click.option(
    "--with-metrics", is_flag=True, help="Add metric gains and cost per point (by method/experiment)."
)
@click.option("--shape", is_flag=True, help="Peak vs average spend per bucket.")
@click.pass_obj
def report(
    obj: Context,
    by: str | None,
    granularity: str | None,
    since: datetime | None,
    until: datetime | None,
    period: str | None,
    fmt_: str,
    with_metrics: bool,
    shape: bool,
) -> None:
    """Realized cost (EffectiveCost) by any dimensions."""
    from trainledger.outputs import views
    from trainledger.reports import benefit, realize
    from trainledger.reports import shape as shape_module
    from trainledger.warehouse.connection import open_warehouse

    columns = parse_dimensions(by or ("method" if with_metrics else "project,phase,method,category"))
    where = {"billing_period": period} if period else None
    with open_warehouse(obj.config, write=False) as con:
        if with_metrics:
            document = views.benefit(
                benefit.cost_benefit(con, _date(since), _date(until), where=where), columns
            )
        elif shape:
            unit, found = shape_module.shape(con, columns, granularity, _date(since), _date(until), where)
            document = views.shape(columns, unit, found, shape_module.gpu_hours(con))
        else:
            headers, records = realize.cost_rows(con, columns, granularity, _date(since), _date(until), where)
            document = views.costs(headers, records)
    emit(document, fmt_)


@click.command(
    epilog=examples(
        "trainledger reconcile exp-sft-0412",
        "trainledger reconcile exp-rl-0419 --format html --out postmortem.html",
        "trainledger reconcile exp-opd-0425 --format json",
    )
)
@click.argument("experiment_id")
@output_format("table", "json", "markdown", "html")
@click.option(
    "--out", type=click.Path(dir_okay=False), default=None, help="Write to this file instead of stdout."
)
@click.pass_obj
def reconcile(obj: Context, experiment_id: str, fmt_: str, out: str | None) -> None:
    """Estimated vs realized cost of one experiment, by phase and category."""
    from trainledger.outputs import postmortem
    from trainledger.reports import experiments as experiments_module
    from trainledger.reports import reconcile as reconcile_module
    from trainledger.warehouse.connection import open_warehouse

    with open_warehouse(obj.config, write=False) as con:
        experiments_module.require(con, obj.config, experiment_id)
        result = reconcile_module.reconcile(con, experiment_id, obj.config.reservations)
    if fmt_ == "json":
        text = json.dumps(result.to_json(), indent=2) + "\n"
    elif fmt_ == "markdown":
        text = postmortem.markdown(result)
    elif fmt_ == "html":
        text = postmortem.html(result)
    else:
        text = visible_lines(postmortem.text(postmortem.terminal_safe(result)))
    emit_text(text, out)


@click.command(
    epilog=examples(
        "trainledger export --period 2026-11 --out 2026-11.csv",
        "trainledger export --period 2026-11 --by project,method --out by-method.csv",
        "trainledger export --period 2026-11 --format focus --focus-version 1.3 --out 2026-11-focus.parquet",
    )
)
@period("The billing period to export (required).", required=True)
@click.option("--by", default=None, help="Keep only these dimensions (others summed, their columns empty).")
@output_format("csv", "xlsx", "focus", default="csv")
@click.option(
    "--cents",
    is_flag=True,
    help="Money rounded to the cent per row; each period/account/currency total still ties to the invoice.",
)
@click.option(
    "--focus-version",
    type=click.Choice(["1.2", "1.3"]),
    default=None,
    help="FOCUS version of --format focus (default: [exports] focus_version, else 1.2); 1.3 writes split "
    "charges as allocated charges.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    required=True,
    help="File to write (.parquet: parquet, for focus).",
)
@click.pass_obj
def export(
    obj: Context, period: str, by: str | None, fmt_: str, cents: bool, focus_version: str | None, out: str
) -> None:
    """Finance export of one billing period's allocations."""
    from trainledger.outputs import export as export_module
    from trainledger.warehouse.connection import open_warehouse

    if fmt_ == "focus" and (by or cents):
        raise click.UsageError(
            f"{'--by' if by else '--cents'} applies to --format csv and xlsx; a FOCUS file has one row "
            "per allocation share, at full precision"
        )
    if focus_version and fmt_ != "focus":
        raise click.UsageError("--focus-version applies to --format focus")
    config = obj.config
    with open_warehouse(config, write=False) as con:
        if fmt_ == "focus":
            from trainledger.outputs import export_focus

            version = cast("FocusVersion", focus_version) if focus_version else config.exports.focus_version
            export_focus.write(con, period, Path(out), version, config.labels)
            echo(f"wrote {out}", err=True)
            return
        if fmt_ == "xlsx":
            write_atomic(Path(out), export_module.export_xlsx(con, period, by, cents))
            echo(f"wrote {out}", err=True)
            return
        text = export_module.export_csv(con, period, by, cents)
    emit_text(text, out)


@click.command(
    epilog=examples(
        "trainledger labels",
        "trainledger labels --period 2026-11",
        "trainledger labels --period 2026-11 --format json",
    )
)
@PERIOD
@output_format("table", "json")
@click.pass_obj
def labels(obj: Context, period: str | None, fmt_: str) -> None:
    """Tag coverage and bad labels, by the cost they carry."""
    from trainledger.outputs import views
    from trainledger.reports import coverage
    from trainledger.warehouse.connection import open_warehouse

    with open_warehouse(obj.config, write=False) as con:
        document = views.labels(coverage.coverage(con, period))
    emit(document, fmt_)


@click.command(
    epilog=examples(
        "trainledger budgets",
        "trainledger budgets --alerts-out alerts.json",
        "trainledger budgets --format json",
    )
)
@output_format("table", "json")
@alerts_out("Also write the crossed thresholds as alert JSON to this file ([] when none).")
@click.pass_obj
@click.pass_context
def budgets(ctx: click.Context, obj: Context, fmt_: str, alerts_out: str | None) -> None:
    """Spend against [[budgets]]; exit 2 when a threshold is crossed."""
    from trainledger.outputs import views
    from trainledger.reports import budgets as budgets_module
    from trainledger.warehouse.connection import open_warehouse

    with open_warehouse(obj.config, write=False) as con:
        statuses = budgets_module.status(con, obj.config)
        shares = budgets_module.share_status(con, obj.config)
    emit(views.budgets(statuses, shares), fmt_)
    alerts = budgets_module.alerts(statuses) + budgets_module.share_alerts(shares)
    for alert in alerts:
        echo(f"trainledger: alert: {alert['message']}", err=True)
    if alerts_out:
        budgets_module.write_alerts(Path(alerts_out), alerts)
    if alerts:
        ctx.exit(int(ExitCode.BUDGET))


@click.command(
    epilog=examples(
        "trainledger experiments",
        "trainledger experiments --project qwen-coder --since 2026-11-01",
        "trainledger experiments --format csv > experiments.csv",
    )
)
@click.option("--project", default=None, help="Only this project's experiments.")
@since_option("Only experiments started on or after this UTC date.")
@output_format("table", "csv", "json")
@click.pass_obj
def experiments(obj: Context, project: str | None, since: datetime | None, fmt_: str) -> None:
    """The known experiments, newest first: estimated vs realized cost, and whether the bill is complete."""
    from trainledger.outputs import views
    from trainledger.reports import experiments as experiments_module
    from trainledger.warehouse.connection import open_warehouse

    with open_warehouse(obj.config, write=False) as con:
        found = experiments_module.known(con, project, since.date() if since else None)
    emit(views.experiments(found), fmt_)
