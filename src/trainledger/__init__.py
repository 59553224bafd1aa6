"""trainledger: what each LLM post-training experiment really cost, reconciled against the cloud bill."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from trainledger.core.config import Config
    from trainledger.outputs.ledger import Ledger

__version__ = "0.1.0"


def open(config: str | Path | Config | None = None, warehouse: str | Path | None = None) -> Ledger:
    """A read-only ledger over the warehouse whose methods return polars frames (README "From Python"):
    the config as the CLI finds it (``config``, $TRAINLEDGER_CONFIG, ./trainledger.toml), ``warehouse``
    over its path. DuckDB and polars load when it is called, not with the package."""
    from trainledger.outputs.ledger import open_ledger

    return open_ledger(config, warehouse)
