"""Per-invocation state of the CLI: global options, the loaded config, the terminal reporter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from trainledger.cli.output import echo
from trainledger.core import config as config_module
from trainledger.core.config import Config
from trainledger.core.redaction import config_secrets, redact


class TerminalReporter:
    """Progress on stderr, so stdout stays data; credentials masked, as in every message. A closed stderr
    is dropped quietly: progress is never worth a lost run."""

    def __init__(self, verbose: bool, redact: Callable[[str], str] = redact) -> None:
        self.verbose = verbose
        self.redact = redact

    def step(self, message: str) -> None:
        echo(f"· {self.redact(message)}", err=True)

    def detail(self, message: str) -> None:
        if self.verbose:
            echo(f"  {self.redact(message)}", err=True)

    def warn(self, message: str) -> None:
        echo(f"trainledger: warning: {self.redact(message)}", err=True)


@dataclass
class Context:
    config_path: str | None
    warehouse: str | None
    verbose: bool
    debug: bool
    lock_timeout: float | None = None
    _config: Config | None = field(default=None, repr=False)

    @property
    def config(self) -> Config:
        """The config file, which must exist: a command that needs one never runs on defaults."""
        if self._config is None:
            self._config = config_module.load(
                self.config_path, self.warehouse, required=True, lock_timeout=self.lock_timeout
            )
        return self._config

    @property
    def config_or_defaults(self) -> Config:
        """The config file when there is one, else the defaults (for `estimate --params` and `log`)."""
        if self._config is None:
            self._config = config_module.load(
                self.config_path, self.warehouse, lock_timeout=self.lock_timeout
            )
        return self._config

    @property
    def reporter(self) -> TerminalReporter:
        return TerminalReporter(self.verbose, self.redact)

    def redact(self, text: str) -> str:
        """Mask credentials, including the configured ones once the config is loaded."""
        return redact(text, config_secrets(self._config) if self._config else ())
