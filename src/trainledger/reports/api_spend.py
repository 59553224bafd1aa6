"""LLM API spend by project and model: what the judge calls, synthetic data and evaluations on a model API
cost, per billing period (``queries/report/api_spend.sql``; the site's "API spend" page)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trainledger.core import providers
from trainledger.reports.realize import MONEY
from trainledger.warehouse.connection import Connection, run

COLUMNS = ("billing_period", "provider", "project", "model", "currency", *MONEY)


def any_api_spend(provider_ids: Iterable[str | None]) -> bool:
    """Whether any of these providers is a model API (so the query has rows to find)."""
    return any(providers.spend_of(p) == providers.LLM_API for p in provider_ids)


def by_project_and_model(con: Connection) -> list[dict[str, Any]]:
    """Rows of COLUMNS, money as Decimal, ordered by period, provider, project (none last) and model."""
    return [dict(zip(COLUMNS, row, strict=True)) for row in run(con, "report/api_spend").fetchall()]
