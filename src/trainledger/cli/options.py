"""Options more than one command takes, defined once, and the global options a command also accepts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def _period(value: str | None) -> str | None:
    if value is None:
        return None
    parts = value.split("-")
    if (
        len(parts) != 2
        or len(parts[0]) != 4
        or not all(p.isdigit() for p in parts)
        or not 1 <= int(parts[1]) <= 12
    ):
        raise click.BadParameter(f"expected YYYY-MM, got {value!r}")
    return value


def period(help_text: str = "Only this billing period.", required: bool = False) -> Callable[[F], F]:
    # No explicit default when required: click takes ``default=None`` as given.
    return click.option(
        "--period",
        metavar="YYYY-MM",
        required=required,
        callback=lambda c, p, v: _period(v),
        help=help_text,
    )


PERIOD = period()


def output_format(*choices: str, default: str = "table") -> Callable[[F], F]:
    """``--format``, stored as ``fmt_``: the formats this command renders, table first."""
    return click.option(
        "--format",
        "fmt_",
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help="table for people; csv and json keep every value exact.",
    )


def alerts_out(help_text: str) -> Callable[[F], F]:
    return click.option("--alerts-out", type=click.Path(dir_okay=False), default=None, help=help_text)


def since_option(help_text: str) -> Callable[[F], F]:
    return click.option("--since", type=click.DateTime(["%Y-%m-%d"]), default=None, help=help_text)


def _set(attribute: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    """Callback of a global option given after the command: it overrides the one given before."""

    def store(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        if value is not None and value is not False:
            setattr(ctx.find_root().obj, attribute, value)

    return store


def global_options() -> list[click.Option]:
    """The group's options, accepted after the command too (`trainledger nightly --verbose`); fresh
    objects for each command."""
    return [
        click.Option(
            ["--config", "config_path"],
            type=click.Path(dir_okay=False),
            expose_value=False,
            callback=_set("config_path"),
            help="Config file (as before the command).",
        ),
        click.Option(
            ["--warehouse"],
            type=click.Path(dir_okay=False),
            expose_value=False,
            callback=_set("warehouse"),
            help="DuckDB warehouse file (as before the command).",
        ),
        click.Option(
            ["--lock-timeout"],
            type=click.FloatRange(min=0),
            metavar="SECONDS",
            expose_value=False,
            callback=_set("lock_timeout"),
            help="Lock wait, seconds (as before the command).",
        ),
        click.Option(
            ["--verbose"], is_flag=True, expose_value=False, callback=_set("verbose"), help="More detail."
        ),
        click.Option(
            ["--debug"],
            is_flag=True,
            expose_value=False,
            callback=_set("debug"),
            help="Tracebacks on errors.",
        ),
    ]


def examples(*lines: str) -> str:
    """A command's help epilog: real examples, one per line, kept as written (``\\b`` stops rewrapping)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)
