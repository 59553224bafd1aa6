"""`trainledger sql`: a query of queries/ as another engine would run it, for review before it runs there."""

from __future__ import annotations

import click

from trainledger.cli.options import examples
from trainledger.core import queries
from trainledger.core.errors import TrainledgerError
from trainledger.reports.dimensions import parse_dimensions


def _composed(name: str) -> str | None:
    """The templates hold markers, not SQL: shown as composed for the default --by (the site's sets)."""
    from trainledger.outputs import export
    from trainledger.reports import realize

    if name == "report/cost_by_sets":
        from trainledger.outputs.site.data import SETS

        return realize.sets_query(SETS)
    if name == "report/cost_by":
        return realize.cost_query(
            parse_dimensions("project,phase,method,category"), None, [], [], by_day=True
        )
    if name == "export/allocations":
        columns = [c for c in export.CSV_COLUMNS if c not in export.MONEY_COLUMNS]
        return realize.export_query(columns, set(columns))
    return None


@click.command(
    "sql",
    epilog=examples(
        "trainledger sql --dialect spark attribute/allocate", "trainledger sql --dialect trino report/cost_by"
    ),
)
@click.option("--dialect", type=click.Choice(queries.DIALECTS), default="spark", show_default=True)
@click.argument("name")
def sql(dialect: str, name: str) -> None:
    """Print query NAME (e.g. attribute/allocate; a folder/file of queries/) transpiled from DuckDB's
    dialect by SQLGlot, with the engine's overrides and anything SQLGlot could not translate noted."""
    from trainledger.warehouse import dialects  # SQLGlot: loaded by this command only

    if name not in queries.names():
        raise TrainledgerError(
            f"no query named {name!r}; the names are the files of queries/, e.g. attribute/allocate"
        )

    click.echo(dialects.transpile(name, dialect, _composed(name)), nl=False)
