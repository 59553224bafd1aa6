"""Connectors pull bills and inventories into the warehouse; one module per source kind.

Cloud SDKs are imported lazily inside the connector modules, so the core never pays for them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from decimal import Decimal
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


_MODULES = {
    "aws-cur2": "trainledger.connectors.aws_cur2",
    "aws-cur": "trainledger.connectors.aws_cur",
    "aws-focus": "trainledger.connectors.aws_focus",
    "aws-tags": "trainledger.connectors.aws_tags",
    "focus": "trainledger.connectors.focus",
    "gcp-billing": "trainledger.connectors.gcp_billing",
    "gcp-catalog": "trainledger.connectors.gcp_catalog",
    "gcp-labels": "trainledger.connectors.gcp_labels",
    "manual": "trainledger.connectors.manual",
}


def connector_for(source: SourceConfig) -> Connector:
    module_name = _MODULES.get(source.kind)
    if module_name is None:
        raise ConfigError(f"source {source.name!r}: kind {source.kind!r} is not available in this version")
    module = importlib.import_module(module_name)
    connector: Connector = module.ingest
    return connector
