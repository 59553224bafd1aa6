"""Batch commands: init, ingest, attribute, nightly."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from trainledger.cli.context import Context
from trainledger.cli.options import PERIOD, alerts_out, examples
from trainledger.cli.output import echo
from trainledger.connectors import IngestResult
from trainledger.core import source_kinds
from trainledger.core.errors import ConfigError, ExitCode
from trainledger.core.files import write_atomic
from trainledger.core.starter import starter
from trainledger.outputs.tables import cell

if TYPE_CHECKING:  # the pipeline (DuckDB, the connectors) loads when a batch command runs
    from trainledger.connectors import IngestResult
    from trainledger.pipeline import jobs


@click.command(
    epilog=examples(
        "trainledger init",
        "trainledger init --source focus --uri billing/focus.csv",
        "trainledger init --source aws-cur2 --uri s3://my-billing-bucket/cur/ml-cur2 --force",
    )
)
@click.option("--force", is_flag=True, help="Overwrite an existing config file.")
@click.option(
    "--source",
    "kind",
    type=click.Choice(list(source_kinds.KINDS)),
    default=None,
    help="Fill in a first source.",
)
@click.option("--uri", default=None, help="Where the first source's files are (a path or s3:// / gs:// URI).")
@click.pass_obj
def init(obj: Context, force: bool, kind: str | None, uri: str | None) -> None:
    """Write a starter trainledger.toml that runs on its first `nightly`.

    Every source kind has a commented example in it; the experiment log may be absent until the first
    run is logged, and nightly writes its exports to exports/.
    """

    from trainledger.core import config as config_module  # pydantic: not needed for --help

    if uri and kind is None:
        raise click.UsageError("--uri needs --source KIND")
    path = Path(obj.config_path or config_module.DEFAULT_CONFIG)
    if path.exists() and not force:
        raise ConfigError(f"{path} already exists; use --force to overwrite it")
    write_atomic(path, starter(kind, uri))
    echo(f"wrote {path}; next: trainledger nightly", err=True)


@click.command(
    epilog=examples(
        "trainledger ingest",
        "trainledger ingest --source aws-cur2 --period 2026-11",
    )
)
@click.option("--source", default=None, help="Only the [[sources]] entry with this name.")
@PERIOD
@click.pass_obj
def ingest(obj: Context, source: str | None, period: str | None) -> None:
    """Pull billing data and inventories into the warehouse."""
    from trainledger.pipeline import jobs

    summary = jobs.ingest(obj.config, obj.reporter, source, period)
    for r in summary.ingested:
        echo(f"{r.source}\t{r.period or '-'}\t{_ingest_state(summary, r)}")


def _ingest_state(summary: jobs.RunSummary, r: IngestResult) -> str:
    if r.skipped:
        return "unchanged"
    billed = summary.billed.get((r.source, r.period))
    return f"{r.rows} rows, billed {_per_currency(billed)}" if billed else f"{r.rows} rows"


def _per_currency(totals: dict[str, Decimal]) -> str:
    """Money of several currencies side by side, never added, to the cent as `report` shows it:
    ``10.00 EUR, 1,005.00 USD``."""
    return ", ".join(f"{cell(total, money=True)} {currency}" for currency, total in sorted(totals.items()))


def _allocated(summary: jobs.RunSummary) -> str:
    """BilledCost of every allocation: all sources together, cloud bills and off-cloud ledgers."""
    billed = _per_currency({c: t["billed"] for c, t in summary.allocated.items()}) or "0.00"
    return f"billed {billed} (all sources: cloud bills and off-cloud ledgers)"


@click.command(
    epilog=examples(
        "trainledger attribute",
        "trainledger attribute --period 2026-11",
    )
)
@PERIOD
@click.pass_obj
def attribute(obj: Context, period: str | None) -> None:
    """Split every charge into allocations (SPEC §4) and check they add up."""
    from trainledger.pipeline import jobs

    summary = jobs.attribute(obj.config, obj.reporter, period)
    result = summary.attribution
    assert result is not None
    echo(
        f"{result.allocations} allocations, {_allocated(summary)} for {', '.join(result.periods) or 'no periods'}"
    )


@click.command(
    epilog=examples(
        "trainledger nightly",
        "trainledger nightly --alerts-out alerts.json",
        "trainledger nightly --verbose 2>&1 | tail -5",
    )
)
@alerts_out("Write crossed budget alerts as JSON to this file (default: <[exports] dir>/alerts.json).")
@click.pass_obj
@click.pass_context
def nightly(ctx: click.Context, obj: Context, alerts_out: str | None) -> None:
    """Ingest + attribute + exports + budget check; exit 2 when a budget threshold is crossed.

    The run's outcome never depends on who reads its output: a reader that goes away loses no work.
    """
    from trainledger.pipeline import jobs

    summary = jobs.nightly(obj.config, obj.reporter, alerts_out)
    for r in summary.ingested:
        echo(f"ingested\t{r.source}\t{r.period or '-'}\t{_ingest_state(summary, r)}")
    if summary.attribution:
        echo(f"attributed\t{summary.attribution.allocations} allocations\t{_allocated(summary)}")
    for path in summary.exports:
        echo(f"exported\t{path}")
    if summary.alerts_file is not None:
        echo(f"alerts\t{summary.alerts_file}\t{len(summary.alerts)} crossed threshold(s)")
    if summary.alerts:
        ctx.exit(int(ExitCode.BUDGET))
