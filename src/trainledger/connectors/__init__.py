"""Connectors pull bills and inventories into the warehouse; one module per source kind (``registry.py``),
each following the contract of ``contract.py``.

Cloud SDKs are imported lazily inside the connector modules, so the core never pays for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Protocol

from trainledger.core.errors import ConfigError

if TYPE_CHECKING:  # annotations only: the run logger imports object_store without DuckDB or pydantic
    from trainledger.core.config import Config, SourceConfig
    from trainledger.core.reporter import Reporter
    from trainledger.warehouse.connection import Connection


@dataclass
class IngestResult:
    """What one source contributed for one billing period (or one inventory pull)."""

    source: str
    period: str | None
    rows: int
    billed_total: Decimal | None = None
    skipped: bool = False
    version: str | None = None
    files: list[str] = field(default_factory=list)


class Connector(Protocol):
    def __call__(
        self, con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
    ) -> list[IngestResult]: ...


def connector_for(source: SourceConfig) -> Connector:
    """The ingest of the source's kind (contract.py): a bill loaded by the shared routine, or a pull."""
    from trainledger.connectors import periods, registry

    if source.kind not in registry.KINDS:
        raise ConfigError(f"source {source.name!r}: kind {source.kind!r} is not available in this version")
    module = registry.module(source.kind)
    if hasattr(module, "pull"):
        pull: Connector = module.pull
        return pull
    return partial(periods.ingest_bill, module)
