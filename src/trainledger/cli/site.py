"""`trainledger site`: the static dashboard, written into a folder."""

from __future__ import annotations

from pathlib import Path

import click

from trainledger.cli.context import Context
from trainledger.cli.options import examples
from trainledger.warehouse.connection import open_warehouse


@click.command(
    epilog=examples(
        "trainledger site --out site",
        "trainledger site --out /srv/www/costs --all-experiments",
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
    help="Post-mortems of the N most recently started experiments (default 100; all with --all-experiments).",
)
@click.option(
    "--all-experiments", is_flag=True, help="A post-mortem for every experiment (slow when thousands)."
)
@click.pass_obj
def site(obj: Context, out: str | None, experiments: int | None, all_experiments: bool) -> None:
    """A static dashboard site: overview, projects, experiments, methods, waste, labels."""
    from trainledger.outputs.site import DEFAULT_EXPERIMENTS, write_site

    target = out or (obj.config.resolve(obj.config.exports.site) if obj.config.exports.site else None)
    if target is None:
        raise click.UsageError("Missing option '--out' (or set [exports] site in the config).")
    limit = None if all_experiments else DEFAULT_EXPERIMENTS if experiments is None else experiments
    with open_warehouse(obj.config, write=False) as con:
        index = write_site(con, obj.config, Path(target), obj.reporter, experiments=limit)
    click.echo(str(index))
