"""The run ledger command: what the last batch runs read, wrote and how they ended."""

from __future__ import annotations

import json

import click

from trainledger.cli.context import Context
from trainledger.outputs.tables import table
from trainledger.warehouse import run_ledger
from trainledger.warehouse.connection import open_warehouse


@click.command()
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="How many runs.")
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_obj
def runs(obj: Context, limit: int, fmt_: str) -> None:
    """Recent ingest / attribute / nightly runs, newest first: outcome, sources and versions read, totals."""
    with open_warehouse(obj.config, write=False) as con:
        found = run_ledger.recent(con, limit)
    if fmt_ == "json":
        for r in found:
            for key in ("started_at", "ended_at"):
                r[key] = r[key].isoformat(timespec="seconds") + "Z" if r[key] else None
        click.echo(json.dumps(found, indent=2))
        return
    rows = [
        (
            r["started_at"].strftime("%Y-%m-%d %H:%M:%S"),
            r["command"],
            r["outcome"],
            f"{(r['ended_at'] - r['started_at']).total_seconds():.1f}" if r["ended_at"] else "-",
            run_ledger.summary(r),
        )
        for r in found
    ]
    click.echo(table(["started (UTC)", "command", "outcome", "seconds", "summary"], rows, []))
