"""Connectors pull bills and inventories into the warehouse; one module per source kind (``registry.py``),
each following the contract of ``contract.py``.

Cloud SDKs are imported lazily inside the connector modules, so the core never pays for them. A source's
ingest is :func:`periods.connector_for`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


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
    residue: dict[str, dict[str, Decimal]] = field(
        default_factory=dict
    )  # money column -> currency -> residue
