"""Small bills and experiment logs written straight into a real DuckDB warehouse, for attribution tests.

Charges skip the connectors (they have their own tests); everything after them is the real code:
label resolution, categories, the attribution queries and the invariant check.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import duckdb

from trainledger.attribution import allocations
from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.reporter import Silent
from trainledger.warehouse.connection import session

T0 = datetime(2026, 11, 10)
PERIOD = "2026-11"
PERIOD_START = datetime(2026, 11, 1)
PERIOD_END = datetime(2026, 12, 1)


def at(hours: float) -> datetime:
    """A moment ``hours`` after 2026-11-10 00:00 UTC."""
    return T0 + timedelta(hours=hours)


@dataclass
class Charge:
    name: str  # the line item id a provider would give; also its file, so messages name it
    cost: Decimal
    start: datetime | None = None
    end: datetime | None = None
    resource_id: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    charge_category: str = "Usage"
    service_name: str = "Amazon Elastic Compute Cloud"
    usage_type: str | None = "BoxUsage:p5.48xlarge"
    service_category: str | None = None  # a FOCUS ServiceCategory, as FOCUS and the API sources write it
    effective: Decimal | None = None
    list_cost: Decimal | None = None
    currency: str = "USD"
    provider: str = "aws"
    account: str = "111122223333"
    period: str = PERIOD

    def row(self) -> dict[str, Any]:
        year, month = map(int, self.period.split("-"))
        bp_start = datetime(year, month, 1)
        bp_end = datetime(year + month // 12, month % 12 + 1, 1)
        return {
            "source": "test",
            "provider": self.provider,
            "billing_period": self.period,
            "billing_period_start": bp_start,
            "billing_period_end": bp_end,
            "charge_period_start": self.start or bp_start,
            "charge_period_end": self.end or bp_end,
            "billing_account_id": self.account,
            "sub_account_id": "444455556666",
            "charge_category": self.charge_category,
            "service_name": self.service_name,
            "resource_id": self.resource_id,
            "usage_type": self.usage_type,
            "service_category": self.service_category,
            "billing_currency": self.currency,
            "billed_cost": self.cost,
            "effective_cost": self.cost if self.effective is None else self.effective,
            "list_cost": self.cost if self.list_cost is None else self.list_cost,
            "tags": json.dumps(self.tags, sort_keys=True),
            "source_row": 1,
            "row_identity": self.name,
        }


@dataclass
class Window:
    resource_id: str
    start: datetime
    end: datetime
    gpus: int = 8
    phase: str | None = "train"
    provider: str | None = "aws"


@dataclass
class Experiment:
    experiment_id: str
    project: str | None
    method: str | None = "sft"
    windows: list[Window] = field(default_factory=list)
    status: str = "succeeded"
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def started_at(self) -> datetime | None:
        return min((w.start for w in self.windows), default=None)

    @property
    def ended_at(self) -> datetime | None:
        return max((w.end for w in self.windows), default=None)


def warehouse() -> duckdb.DuckDBPyConnection:
    """An empty in-memory warehouse with the real schema."""
    con = duckdb.connect(":memory:")
    session(con)  # UTC, and the provider table the queries read, as every opened warehouse has them
    con.execute(queries.load("schema/warehouse"))
    return con


def add_charges(con: duckdb.DuckDBPyConnection, charges: list[Charge]) -> None:
    """Insert the charges in order, each as row 1 of a file named after it (as a load numbers them)."""
    for charge in charges:
        row = charge.row()
        columns = ", ".join(row)
        values = ", ".join(f"${name}" for name in row)
        slot = (con.execute("SELECT nextval('charge_file_slots')").fetchone() or (1,))[0]
        con.execute(
            "INSERT INTO charge_files VALUES ($slot, 'test', $name)", {"slot": slot, "name": charge.name}
        )
        con.execute(
            f"INSERT INTO charges (charge_id, {columns}) VALUES (charge_number($slot, 1), {values})",
            {**row, "slot": slot},
        )


def add_experiments(con: duckdb.DuckDBPyConnection, experiments: list[Experiment]) -> None:
    for e in experiments:
        con.execute(
            "INSERT INTO experiments (experiment_id, project, method, status, started_at, ended_at, params) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (e.experiment_id, e.project, e.method, e.status, e.started_at, e.ended_at, json.dumps(e.params)),
        )
        for w in e.windows:
            con.execute(
                "INSERT INTO experiment_resources VALUES (?, ?, ?, ?, ?, ?, ?)",
                (e.experiment_id, w.phase, w.provider, w.resource_id, w.gpus, w.start, w.end),
            )


def add_resource(
    con: duckdb.DuckDBPyConnection,
    resource_id: str,
    tags: dict[str, str] | None = None,
    aliases: list[str] | None = None,
    provider: str = "aws",
) -> None:
    con.execute(
        "INSERT INTO resources VALUES (?, ?, 'inventory', NULL, NULL, ?, ?, ?, ?)",
        (provider, resource_id, json.dumps(tags or {}), aliases, T0, T0),
    )


def attribute(
    charges: list[Charge],
    experiments: Sequence[Experiment] = (),
    shared: str = "separate",
    con: duckdb.DuckDBPyConnection | None = None,
) -> duckdb.DuckDBPyConnection:
    """A warehouse holding ``charges`` and ``experiments``, attributed with the real code."""
    con = con or warehouse()
    add_charges(con, charges)
    add_experiments(con, list(experiments))
    allocations.attribute(con, Config.model_validate({"allocation": {"shared": shared}}), Silent())
    return con


def split(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[Any, ...]]:
    """(rule, project, phase, experiment_id, effective cost) of one charge's allocations, in share order."""
    return con.execute(
        "SELECT a.rule, a.project, a.phase, a.experiment_id, a.effective_cost FROM allocations a "
        "JOIN charges c USING (charge_id) WHERE c.row_identity = $name ORDER BY a.share_no",
        {"name": name},
    ).fetchall()


def by_name(con: duckdb.DuckDBPyConnection, sql: str = "SELECT * FROM allocations") -> list[tuple[Any, ...]]:
    """Allocation rows of ``sql`` with each charge's number replaced by its name, in name and share order:
    numbers follow insertion order, names do not."""
    return con.execute(
        f"SELECT a.* REPLACE (c.row_identity AS charge_id) FROM ({sql}) a JOIN charges c USING (charge_id) "
        "ORDER BY c.row_identity, a.share_no"
    ).fetchall()
