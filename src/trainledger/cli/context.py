"""Per-invocation state of the CLI: global options, the loaded config, the terminal reporter."""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from trainledger import config as config_module
from trainledger.config import Config


class TerminalReporter:
    """Progress on stderr, so stdout stays data."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose

    def step(self, message: str) -> None:
        click.echo(f"· {message}", err=True)

    def detail(self, message: str) -> None:
        if self.verbose:
            click.echo(f"  {message}", err=True)

    def warn(self, message: str) -> None:
        click.echo(f"trainledger: warning: {message}", err=True)


@dataclass
class Context:
    config_path: str | None
    warehouse: str | None
    verbose: bool
    debug: bool
    _config: Config | None = field(default=None, repr=False)

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = config_module.load(self.config_path, self.warehouse)
        return self._config

    @property
    def reporter(self) -> TerminalReporter:
        return TerminalReporter(self.verbose)
