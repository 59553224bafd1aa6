"""The run ledger command: what the last batch runs read, wrote and how they ended."""

from __future__ import annotations

import click

from trainledger.cli.context import Context
from trainledger.cli.options import examples, output_format
from trainledger.cli.output import emit


@click.command(epilog=examples("trainledger runs", "trainledger runs --limit 5 --format json"))
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="How many runs.")
@output_format("table", "json")
@click.pass_obj
def runs(obj: Context, limit: int, fmt_: str) -> None:
    """Recent ingest / attribute / nightly runs, newest first: outcome, sources and versions read, totals
    (with --verbose, what rounding each bill's money to 12 decimal places left out)."""
    from trainledger.outputs import views
    from trainledger.warehouse import run_ledger
    from trainledger.warehouse.connection import open_warehouse

    with open_warehouse(obj.config, write=False) as con:
        found = run_ledger.recent(con, limit)
    emit(views.runs(found, obj.verbose), fmt_)
