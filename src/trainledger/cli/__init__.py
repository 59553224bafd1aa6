"""Command-line interface: parse options, call one core function, render. Errors end here, as one line."""

from __future__ import annotations

import sys
import traceback
from typing import Any

import click

from trainledger import __version__
from trainledger.cli.context import Context
from trainledger.cli.options import global_options
from trainledger.cli.output import echo, flush_quietly, reopen_closed_streams
from trainledger.core.errors import ExitCode, TrainledgerError
from trainledger.core.redaction import redact

EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 user error (bad config or input); 2 budget threshold crossed "
    "(nightly, budgets); 3 internal error; 75 warehouse busy (another run holds it; try again later)."
)


# click >= 8.2 raises this for a bare `trainledger` (its message is the help text); 8.1 exits 0 with it.
_NO_ARGS: Any = getattr(click.exceptions, "NoArgsIsHelpError", None)


def usage_line(exc: click.ClickException) -> str:
    """A mistyped command as one line, like every other user error, with where to look."""
    message = " ".join(exc.format_message().split()).rstrip(".")
    ctx = exc.ctx if isinstance(exc, click.UsageError) else None
    if ctx is None:
        return f"trainledger: error: {message}"
    command = " ".join(["trainledger", *ctx.command_path.split()[1:]])  # whatever name it was run by
    return f"trainledger: error: {message}; see `{command} --help`"


class Boundary(click.Group):
    """The one error boundary: an error is one line on stderr, credentials masked; tracebacks only with
    --debug (masked too)."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Like click's, but a usage error exits 1 (a user error): exit 2 means a crossed budget here."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.ClickException as exc:
            if _NO_ARGS is not None and isinstance(exc, _NO_ARGS):
                exc.show()  # bare `trainledger`: the help text
            else:
                echo(redact(usage_line(exc)), err=True)  # a mistyped value may hold a credential
            sys.exit(int(ExitCode.USER_ERROR))
        except click.Abort:
            echo("Aborted!", err=True)
            sys.exit(int(ExitCode.USER_ERROR))
        sys.exit(code if isinstance(code, int) else int(ExitCode.OK))

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TrainledgerError as exc:
            self._fail(ctx, f"trainledger: error: {exc}", exc.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            first = str(exc).splitlines()[0] if str(exc) else ""
            self._fail(
                ctx,
                f"trainledger: internal error: {type(exc).__name__}: {first} (rerun with --debug "
                "for the traceback)",
                ExitCode.INTERNAL,
            )

    @staticmethod
    def _fail(ctx: click.Context, line: str, code: int) -> None:
        obj = ctx.obj if isinstance(ctx.obj, Context) else None
        if obj is not None and obj.debug:
            echo(obj.redact(traceback.format_exc()).rstrip("\n"), err=True)
        echo(obj.redact(line) if obj else redact(line), err=True)
        ctx.exit(int(code))


@click.group(
    cls=Boundary,
    epilog=EXIT_CODES_HELP
    + "\n\nGlobal options may also follow the command (`trainledger nightly --verbose`).",
)
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
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="Wait at most this long for a running job to release the warehouse (overrides [warehouse] "
    "lock_timeout_s and $TRAINLEDGER_LOCK_TIMEOUT).",
)
@click.option("--verbose", is_flag=True, help="More detail on stderr.")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option(__version__, prog_name="trainledger")
@click.pass_context
def cli(
    ctx: click.Context,
    config_path: str | None,
    warehouse: str | None,
    lock_timeout: float | None,
    verbose: bool,
    debug: bool,
) -> None:
    """trainledger: what each post-training experiment really cost, reconciled against the bill."""
    ctx.obj = Context(config_path, warehouse, verbose, debug, lock_timeout)


def _every(command: click.Command) -> list[click.Command]:
    """The command and, for a group (`log`), each of its subcommands."""
    if isinstance(command, click.Group):
        return [command, *(each for sub in command.commands.values() for each in _every(sub))]
    return [command]


def _register() -> None:
    """Add every command, each accepting the global options after its name too (`log --verbose start`
    as well as `log start --verbose`)."""
    from trainledger.cli import batch, estimates, job_log, reports, runs, site, sql

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
        reports.experiments,
        estimates.estimate,
        job_log.log_group,
        runs.runs,
        site.site,
        sql.sql,
    ):
        cli.add_command(command)
        for each in _every(command):
            each.params.extend(global_options())


_register()


def main() -> None:
    reopen_closed_streams()  # a command started with stdout or stderr closed still does its work
    try:
        cli.main(standalone_mode=True)
    except SystemExit as done:
        flush_quietly()  # a reader that went away must not turn the run's status into a failure
        raise done
