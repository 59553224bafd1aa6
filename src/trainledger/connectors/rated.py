"""Usage priced by the ``[[rates]]`` card (SPEC §5): what the kinds ``focus-usage`` (a GPU cloud's
usage-only FOCUS export) and ``cluster`` (an owned Slurm cluster's node hours) share.

A kind reads its usage rows; here each row is priced in exact Decimal (quantity x the rate valid at the
row's start, half-even to 12 places), staged, and normalised by ``queries/ingest/normalize_rated.sql``
into charges marked as priced by trainledger. A row no rate prices is not a charge: its quantity is kept
in ``unpriced_usage`` for its period, which ``labels`` reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from trainledger.connectors import bill_loader, sql_slots
from trainledger.connectors.contract import Staged
from trainledger.core import queries
from trainledger.core.rate_card import RateCard, priced
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

SUFFIX = " (priced by trainledger rate card)"  # normalize_rated.sql adds it to every service name


@dataclass(frozen=True)
class Usage:
    """One usage row as read: a quantity of a unit of a SKU or node over a time, with what the charge keeps."""

    file: str
    row: int
    start: datetime  # naive UTC
    end: datetime
    key: str  # what the rate card is asked for: the SKU, or the node
    quantity: Decimal
    unit: str
    service_name: str
    service_category: str
    resource_id: str | None = None
    resource_type: str | None = None
    region_id: str | None = None
    billing_account_id: str | None = None
    sub_account_id: str | None = None
    tags: str = "{}"
    row_identity: str | None = None


def stage(
    con: Connection,
    *,
    source: str,
    provider: str,
    card: RateCard,
    usage: list[Usage],
    files: list[str],
    reporter: Reporter,
) -> Staged:
    """Price and stage the rows; the returned ``loaded`` keeps the unpriced ones of each period replaced."""
    sql_slots.run_filled(con, "ingest/rated_rows")
    records = []
    unpriced = 0
    for u in usage:
        rate = card.find(u.key, u.unit, u.start)
        price = None if rate is None else rate.price
        cost = None if rate is None else priced(u.quantity, rate.price)
        unpriced += rate is None
        records.append(
            (
                u.file,
                u.row,
                u.start,
                u.end,
                u.key,
                u.quantity,
                u.unit,
                price,
                cost,
                None if rate is None else rate.currency,
                u.billing_account_id,
                u.sub_account_id,
                u.service_name,
                u.service_category,
                u.resource_id,
                u.resource_type,
                u.region_id,
                u.tags,
                u.row_identity,
            )
        )
    con.executemany(queries.load("ingest/insert_rated_row"), records)
    reporter.step(
        f"{source}: {len(usage) - unpriced} usage row(s) priced by the rate card"
        + (f", {unpriced} with no rate (see `trainledger labels`)" if unpriced else "")
    )
    bill_loader.stage_table(con, "ingest/normalize_rated", {"source": source, "provider": provider})
    found = sorted({u.start.strftime("%Y-%m") for u in usage})
    return Staged(files, periods=found, loaded=_keep_unpriced(con, source, provider))


def _keep_unpriced(con: Connection, source: str, provider: str) -> Callable[[list[str]], None]:
    def keep(replaced: list[str]) -> None:
        for period in replaced:
            sql_slots.run_filled(con, "ingest/delete_unpriced", {"source": source, "period": period})
            sql_slots.run_filled(
                con, "ingest/insert_unpriced", {"source": source, "provider": provider, "period": period}
            )

    return keep
