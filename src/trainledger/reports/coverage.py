"""Tag coverage and label problems (the `labels` command), by the cost they carry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trainledger.attribution.allocations import periods_in_scope
from trainledger.warehouse.connection import Connection, rows


@dataclass
class Coverage:
    periods: list[str]
    by_rule: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    unknown_services: list[dict[str, Any]]


def coverage(con: Connection, period: str | None) -> Coverage:
    periods = periods_in_scope(con, period)
    params = {"periods": periods}
    return Coverage(
        periods,
        rows(con, "report/labels_coverage", params),
        rows(con, "report/labels_problems", params),
        rows(con, "report/labels_unknown_services", params),
    )
