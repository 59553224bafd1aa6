"""Batch commands: init, ingest, attribute, nightly."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import click

from trainledger.cli.context import Context
from trainledger.cli.options import PERIOD
from trainledger.connectors import IngestResult
from trainledger.core import config as config_module
from trainledger.core.errors import ConfigError, ExitCode
from trainledger.core.money import fmt
from trainledger.pipeline import jobs
from trainledger.reports import budgets


@click.command()
@click.option("--force", is_flag=True, help="Overwrite an existing config file.")
@click.pass_obj
def init(obj: Context, force: bool) -> None:
    """Write a starter trainledger.toml."""
    path = Path(obj.config_path or config_module.DEFAULT_CONFIG)
    if path.exists() and not force:
        raise ConfigError(f"{path} already exists; use --force to overwrite it")
    path.write_text(config_module.STARTER, encoding="utf-8")
    click.echo(f"wrote {path}", err=True)


@click.command()
@click.option("--source", default=None, help="Only the [[sources]] entry with this name.")
@PERIOD
@click.pass_obj
def ingest(obj: Context, source: str | None, period: str | None) -> None:
    """Pull billing data and inventories into the warehouse."""
    summary = jobs.ingest(obj.config, obj.reporter, source, period)
    for r in summary.ingested:
        click.echo(f"{r.source}\t{r.period or '-'}\t{_ingest_state(summary, r)}")


def _ingest_state(summary: jobs.RunSummary, r: IngestResult) -> str:
    if r.skipped:
        return "unchanged"
    billed = summary.billed.get((r.source, r.period))
    return f"{r.rows} rows, billed {_per_currency(billed)}" if billed else f"{r.rows} rows"


def _per_currency(totals: dict[str, Decimal]) -> str:
    """Money of several currencies side by side, never added: ``10.00 EUR, 5.00 USD``."""
    return ", ".join(f"{fmt(total)} {currency}" for currency, total in sorted(totals.items()))


def _allocated(summary: jobs.RunSummary) -> str:
    return _per_currency({c: t["billed"] for c, t in summary.allocated.items()}) or "0.00"


@click.command()
@PERIOD
@click.pass_obj
def attribute(obj: Context, period: str | None) -> None:
    """Split every charge into allocations (SPEC §4) and check they add up."""
    summary = jobs.attribute(obj.config, obj.reporter, period)
    result = summary.attribution
    assert result is not None
    click.echo(
        f"{result.allocations} allocations, billed {_allocated(summary)} "
        f"for {', '.join(result.periods) or 'no periods'}"
    )


@click.command()
@click.option(
    "--alerts-out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write crossed budget alerts as JSON to this file (default: <[exports] dir>/alerts.json).",
)
@click.pass_obj
@click.pass_context
def nightly(ctx: click.Context, obj: Context, alerts_out: str | None) -> None:
    """Ingest + attribute + exports + budget check; exit 2 when a budget threshold is crossed."""
    summary = jobs.nightly(obj.config, obj.reporter)
    for r in summary.ingested:
        click.echo(f"ingested\t{r.source}\t{r.period or '-'}\t{_ingest_state(summary, r)}")
    if summary.attribution:
        click.echo(f"attributed\t{summary.attribution.allocations} allocations\tbilled {_allocated(summary)}")
    for path in summary.exports:
        click.echo(f"exported\t{path}")
    target = budgets.alerts_path(obj.config, alerts_out)
    if target is not None:
        budgets.write_alerts(target, summary.alerts)
        click.echo(f"alerts\t{target}\t{len(summary.alerts)} crossed threshold(s)")
    if summary.alerts:
        ctx.exit(int(ExitCode.BUDGET))
