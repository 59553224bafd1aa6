"""Connectors pull bills and inventories into the warehouse; one module per source kind (named in ``core/source_kinds.py``),
each following the contract of ``contract.py``.

Cloud SDKs are imported lazily inside the connector modules, so the core never pays for them. A source's
ingest is :func:`bill_loader.connector_for`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from trainledger.core.money import fmt


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

    def ledger_entry(self, totals: dict[str, tuple[int, Decimal]]) -> dict[str, Any]:
        """What the run ledger keeps of this result (``totals``: rows and BilledCost per currency)."""
        entry: dict[str, Any] = {
            "source": self.source,
            "period": self.period,
            "skipped": self.skipped,
            "rows": self.rows,
            "version": self.version,
            "files": self.files,
        }
        if not self.skipped:
            entry["billed"] = {currency: fmt(total) for currency, (_, total) in totals.items()}
        if self.residue:
            # SPEC §2: the sum as written minus the sum stored, per money column and currency, every digit kept.
            entry["rounding_residue"] = {
                column: {currency: f"{value:f}" for currency, value in by_currency.items()}
                for column, by_currency in self.residue.items()
            }
        return entry
