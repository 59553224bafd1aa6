"""`trainledger site`: the static dashboard, written into a folder."""

from __future__ import annotations

from pathlib import Path

import click

from trainledger.cli.context import Context
from trainledger.cli.options import examples


@click.command(
    epilog=examples(
        "trainledger site --out site",
        "trainledger site --out site --experiments 20",
    )
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder to write (replaced whole; default [exports] site).",
)
@click.option(
    "--experiments",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Post-mortems of the N most recently started experiments only (default: every experiment).",
)
@click.pass_obj
def site(obj: Context, out: str | None, experiments: int | None) -> None:
    """A static dashboard site: overview, projects, experiments, methods, waste, labels."""
    from trainledger.outputs.site import write_site
    from trainledger.warehouse.connection import open_warehouse

    target = out or (obj.config.resolve(obj.config.exports.site) if obj.config.exports.site else None)
    if target is None:
        raise click.UsageError("Missing option '--out' (or set [exports] site in the config).")
    with open_warehouse(obj.config, write=False) as con:
        index = write_site(con, obj.config, Path(target), obj.reporter, experiments=experiments)
    click.echo(str(index))
