"""The one loading routine of every bill: skip an unchanged period, replace a changed one, record state.

A restatement replaces its period whole, so late rows land once; the caller's transaction makes every
swap atomic. Currencies are never added: a period in several currencies records no single total.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any, Protocol

from trainledger.connectors import IngestResult, rounding, sql_slots
from trainledger.connectors.contract import Bill, Delivery, Staged
from trainledger.core import source_kinds
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import ConfigError, InputError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection


class Connector(Protocol):
    def __call__(
        self, con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
    ) -> list[IngestResult]: ...


def connector_for(source: SourceConfig) -> Connector:
    """The ingest of the source's kind (contract.py): a bill loaded by the shared routine, or a pull."""
    if source.kind not in source_kinds.KINDS:
        raise ConfigError(f"source {source.name!r}: kind {source.kind!r} is not available in this version")
    module = source_kinds.module(source.kind)
    if hasattr(module, "pull"):
        pull: Connector = module.pull
        return pull
    return partial(ingest_bill, module)


def ingest_bill(
    bill: Bill, con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    """A bill kind's ingest: its deliveries, each staged by the kind and loaded here."""
    deliveries = bill.deliveries(source, config, period, reporter)
    return load_periods(
        con, source.name, deliveries, lambda d: bill.stage(con, source, config, d, reporter), reporter, period
    )


def load_periods(
    con: Connection,
    source: str,
    deliveries: Iterable[Delivery],
    stage: Callable[[Delivery], Staged],
    reporter: Reporter,
    only: str | None = None,
) -> list[IngestResult]:
    """Load each delivery: a period whose version is recorded is skipped before anything is read (or, when
    the rows name their periods, after reading them); every other period is replaced.

    ``stage(delivery) -> Staged`` reads one delivery; ``only`` (``--period``) keeps one period.
    """
    results = []
    for delivery in deliveries:
        if delivery.period is not None and known_version(con, source, delivery.period) == delivery.version:
            results.append(_unchanged(source, delivery.period, delivery.version, reporter))
            continue
        staged = stage(delivery)
        periods = staged.periods if staged.periods is not None else staged_periods(con, staged)
        residues = staged.residues() if staged.residues else {}
        keep = delivery.period or only
        replaced = []
        for p in periods:
            if keep is not None and p != keep:
                continue
            if known_version(con, source, p) == delivery.version:
                results.append(_unchanged(source, p, delivery.version, reporter))
                continue
            result = replace_period(con, source=source, period=p, version=delivery.version, staged=staged)
            result.residue = residues.get(p, {})
            rounding.warn_large(reporter, source, p, result.residue)
            results.append(result)
            replaced.append(p)
        if staged.loaded is not None:
            staged.loaded(replaced)
    return results


def _unchanged(source: str, period: str, version: str, reporter: Reporter) -> IngestResult:
    reporter.detail(f"{source} {period}: unchanged, skipped")
    return IngestResult(source, period, 0, skipped=True, version=version)


def rows_of(staged: Staged) -> sql_slots.Fragment:
    """Where staged rows are read from: the normalising query (streamed) or the staged table."""
    return sql_slots.subquery(staged.query) if staged.query else sql_slots.ident("staged_charges")


def stage_table(con: Connection, query: str, params: dict[str, Any]) -> None:
    """Run a normalising query once into the temporary table ``staged_charges``."""
    sql_slots.run_filled(con, "ingest/stage_charges", params, rows=sql_slots.subquery(query))


def staged_periods(con: Connection, staged: Staged) -> list[str]:
    return [
        p
        for (p,) in sql_slots.run_filled(
            con, "ingest/staged_periods", staged.params, rows=rows_of(staged)
        ).fetchall()
    ]


def replace_period(
    con: Connection, *, source: str, period: str, version: str, staged: Staged
) -> IngestResult:
    """Swap the period's charges for the staged rows.

    An empty restatement of a period the warehouse holds is refused: a cut-short delivery must not erase a
    month (it is found after the swap, which the caller's transaction then undoes).
    """
    held = known_version(con, source, period) is not None
    sql_slots.run_filled(con, "ingest/delete_period_charges", {"source": source, "period": period})
    # The period's charges get new ids, so its allocations must be made again, even for the same content.
    sql_slots.run_filled(con, "ingest/forget_attribution")
    insert_charges(con, source, staged.files, rows_of(staged), {**staged.params, "period": period})
    sql_slots.run_filled(con, "ingest/delete_unused_charge_files", {"source": source})
    count, total = record_state(con, source, period, version, staged.files)
    if not count and held:
        files = staged.files
        where = files[0] if len(files) == 1 else f"{len(files)} files"
        raise InputError(
            f"{where}: no line items for billing period {period}; expected the restated period's rows "
            "(an empty delivery would erase the period, which is kept as it was)"
        )
    return IngestResult(source, period, count, total, version=version, files=list(staged.files))


def insert_charges(
    con: Connection, source: str, files: Iterable[str], rows: sql_slots.Fragment, params: dict[str, Any]
) -> None:
    """Insert normalised rows (``source_file``, ``source_row``; of ``$period`` unless it is NULL) into
    charges, each numbered by its file and row; the files go to ``charge_files`` once each rather than on
    every charge (at 10M rows, 0.3 s of writing)."""
    sql_slots.run_filled(con, "ingest/load_files", {"names": sorted(set(files))})
    sql_slots.run_filled(con, "ingest/insert_charge_files", {"source": source})
    sql_slots.run_filled(con, "ingest/insert_charges", params, rows=rows)


def record_state(
    con: Connection, source: str, period: str, version: str, files: Sequence[str]
) -> tuple[int, Decimal | None]:
    """Record the period's version, files, rows and billed total as the warehouse now holds them; the
    total is None when the period holds several currencies (the run ledger keeps one per currency)."""
    count, currencies, total = sql_slots.run_filled(
        con, "ingest/period_totals", {"source": source, "period": period}
    ).fetchone() or (0, 0, None)
    if currencies > 1:
        total = None  # currencies are never added
    sql_slots.run_filled(
        con,
        "ingest/record_state",
        {
            "source": source,
            "period": period,
            "version": version,
            "files": json.dumps(list(files)),
            "rows": count,
            "total": total,
            "at": datetime.now(UTC).replace(tzinfo=None),
        },
    )
    return int(count), Decimal(total) if total is not None else None


def known_version(con: Connection, source: str, period: str) -> str | None:
    row = sql_slots.run_filled(con, "ingest/known_version", {"source": source, "period": period}).fetchone()
    return row[0] if row else None
