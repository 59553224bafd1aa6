"""Tag coverage and label problems (the `labels` command), by the cost they carry."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trainledger.attribution.allocations import periods_in_scope
from trainledger.warehouse.connection import Connection, rows


@dataclass
class Coverage:
    periods: list[str]
    by_rule: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    unknown_services: list[dict[str, Any]]
    # LLM API spend whose project / workspace the source's labels do not map, by that id.
    unmapped: list[dict[str, Any]] = field(default_factory=list)
    # Usage reported without a cost that no [[rates]] entry prices, by SKU / node and unit.
    unpriced: list[dict[str, Any]] = field(default_factory=list)


def coverage(con: Connection, period: str | None) -> Coverage:
    periods = periods_in_scope(con, period)
    params = {"periods": periods}
    return Coverage(
        periods,
        rows(con, "report/labels_coverage", params),
        rows(con, "report/labels_problems", params),
        rows(con, "report/labels_unknown_services", params),
        rows(con, "report/labels_unmapped", params),
        rows(con, "report/labels_unpriced", {"period": period}),
    )
