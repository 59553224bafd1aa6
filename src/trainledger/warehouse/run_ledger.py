"""The run ledger (table ``runs``): what each batch run read, what it wrote, and how it ended.

A run's row is written inside the run's own transaction, so a run killed before its commit leaves no
trace, like everything else it did. A run that fails is rolled back first and then recorded as
``failed`` in a small transaction of its own. Outcomes:

- ``ok``: everything committed and every later step (exports, budget check) done;
- ``failed``: rolled back, nothing but this row changed; ``detail.error`` says why;
- ``incomplete``: data committed, but a later step failed (``detail.error``) or the process ended first.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import duckdb

from trainledger import __version__
from trainledger.core.errors import TrainledgerError
from trainledger.core.redaction import redact
from trainledger.warehouse.connection import Connection, transaction
from trainledger.warehouse.connection import run as run_query

OUTCOMES = ("ok", "failed", "incomplete")


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass
class BatchRun:
    """One batch run as the ledger keeps it; ``detail`` fills in as the run goes."""

    command: str
    args: dict[str, Any] = field(default_factory=dict)
    run_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    started_at: datetime = field(default_factory=now)
    detail: dict[str, Any] = field(default_factory=dict)
    committed: bool = False
    secrets: Sequence[str] = field(default=(), repr=False)  # masked in everything the ledger keeps


def currency_totals(con: Connection, source: str, period: str | None) -> dict[str, tuple[int, Decimal]]:
    """Rows and BilledCost per currency of one source's period: currencies are reported, never added."""
    found = run_query(con, "ledger/source_totals", {"source": source, "period": period}).fetchall()
    return {currency: (int(rows), Decimal(total)) for currency, rows, total in found}


def allocation_totals(con: Connection, periods: Sequence[str]) -> dict[str, dict[str, Decimal]]:
    """BilledCost and EffectiveCost per currency of the allocations of ``periods``."""
    found = run_query(con, "ledger/allocation_totals", {"periods": list(periods)}).fetchall()
    return {c: {"billed": Decimal(b), "effective": Decimal(e)} for c, b, e in found}


def write(con: Connection, run: BatchRun, outcome: str) -> None:
    """Insert or update the run's row (credentials masked: the ledger is read by people and tools)."""
    assert outcome in OUTCOMES
    detail = {"version": __version__, "args": run.args, **run.detail}
    run_query(
        con,
        "ledger/run_write",
        {
            "id": run.run_id,
            "command": run.command,
            "started": run.started_at,
            "ended": now(),
            "outcome": outcome,
            "detail": redact(json.dumps(detail, sort_keys=True, default=str), run.secrets),
        },
    )


def describe(exc: BaseException) -> str:
    if isinstance(exc, TrainledgerError):
        return str(exc)
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {first}".rstrip(": ")


@contextmanager
def recorded(con: Connection, run: BatchRun) -> Iterator[BatchRun]:
    """Record the run as failed (or incomplete, once committed) when the block raises, then re-raise.

    Runs after the block's own transaction has rolled back, so the failure row is all that changes.
    """
    try:
        yield run
    except (Exception, KeyboardInterrupt) as exc:
        run.detail["error"] = describe(exc)
        with (
            suppress(duckdb.Error),
            transaction(con),
        ):  # a dead connection cannot record; the error still shows
            write(con, run, "incomplete" if run.committed else "failed")
        raise


def recent(con: Connection, limit: int) -> list[dict[str, Any]]:
    """The last ``limit`` runs, newest first, with their detail parsed."""
    cur = run_query(con, "ledger/runs_recent", {"limit": limit})
    runs = []
    for run_id, command, started, ended, outcome, detail in cur.fetchall():
        runs.append(
            {
                "run_id": run_id,
                "command": command,
                "started_at": started,
                "ended_at": ended,
                "outcome": outcome,
                "detail": json.loads(detail) if detail else {},
            }
        )
    return runs


def summary(run: dict[str, Any], verbose: bool = False) -> str:
    """One line for a person: what was read and produced, or why the run failed; ``verbose`` adds what
    rounding each source's money to 12 decimal places left out (the sum as written minus the sum stored)."""
    detail = run["detail"]
    parts = []
    for entry in detail.get("sources", []):
        where = f"{entry['source']} {entry['period'] or '-'}"
        if entry.get("skipped"):
            parts.append(f"{where} unchanged")
        else:
            billed = ", ".join(f"{total} {c}" for c, total in (entry.get("billed") or {}).items())
            parts.append(f"{where} {entry['rows']} rows" + (f" ({billed})" if billed else ""))
        if verbose and entry.get("rounding_residue"):
            left = ", ".join(
                f"{column} {value} {currency}"
                for column, by_currency in entry["rounding_residue"].items()
                for currency, value in by_currency.items()
            )
            parts.append(f"{where} rounding residue: {left}")
    unchanged = detail.get("unchanged", [])
    attribution = detail.get("attribution")
    if attribution:
        kept = " (unchanged)" if "attribution" in unchanged else ""
        parts.append(f"{attribution['allocations']} allocations{kept}")
    if detail.get("exports"):
        kept = " (unchanged)" if "exports" in unchanged else ""
        parts.append(f"{len(detail['exports'])} export(s){kept}")
    if detail.get("alerts"):
        parts.append(f"{detail['alerts']} budget alert(s)")
    if detail.get("error"):
        parts.append(f"error: {detail['error']}")
    elif run["outcome"] == "incomplete":
        parts.append("ended after its commit, before exports and alerts were done")
    return "; ".join(parts) or "-"
