"""Options more than one command group takes, defined once."""

from __future__ import annotations

import click

PERIOD = click.option(
    "--period",
    metavar="YYYY-MM",
    default=None,
    callback=lambda c, p, v: _period(v),
    help="Only this billing period.",
)


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
