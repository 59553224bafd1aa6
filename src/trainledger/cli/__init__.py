"""Command-line interface: parse options, call one core function, render. Errors end here, as one line."""

from __future__ import annotations

import sys
from typing import Any

import click

from trainledger import __version__
from trainledger.cli.context import Context
from trainledger.errors import ExitCode, TrainledgerError

EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 user error (bad config or input); 2 budget threshold crossed "
    "(nightly, budgets); 3 internal error."
)


class Boundary(click.Group):
    """The one error boundary: a TrainledgerError is one line on stderr; tracebacks only with --debug."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TrainledgerError as exc:
            if ctx.obj is not None and ctx.obj.debug:
                raise
            click.echo(f"trainledger: error: {exc}", err=True)
            ctx.exit(int(exc.exit_code))
        except (click.exceptions.Exit, click.ClickException, click.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if ctx.obj is not None and ctx.obj.debug:
                raise
            first = str(exc).splitlines()[0] if str(exc) else ""
            click.echo(
                f"trainledger: internal error: {type(exc).__name__}: {first} (rerun with --debug "
                "for the traceback)",
                err=True,
            )
            ctx.exit(int(ExitCode.INTERNAL))


@click.group(cls=Boundary, epilog=EXIT_CODES_HELP)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Config file (default ./trainledger.toml, or $TRAINLEDGER_CONFIG).",
)
@click.option(
    "--warehouse",
    type=click.Path(dir_okay=False),
    default=None,
    help="DuckDB warehouse file (overrides [warehouse] path).",
)
@click.option("--verbose", is_flag=True, help="More detail on stderr.")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option(__version__, prog_name="trainledger")
@click.pass_context
def cli(
    ctx: click.Context, config_path: str | None, warehouse: str | None, verbose: bool, debug: bool
) -> None:
    """trainledger: what each post-training experiment really cost, reconciled against the bill."""
    ctx.obj = Context(config_path, warehouse, verbose, debug)


def _register() -> None:
    from trainledger.cli import batch, estimates, reports
    from trainledger.cli import runlog as runlog_cli

    for command in (
        batch.init,
        batch.ingest,
        batch.attribute,
        batch.nightly,
        reports.report,
        reports.reconcile,
        reports.export,
        reports.labels,
        reports.budgets,
        estimates.estimate,
        runlog_cli.log_group,
    ):
        cli.add_command(command)


_register()


def main() -> None:
    sys.exit(cli.main(standalone_mode=True))
