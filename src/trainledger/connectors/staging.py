"""Shared steps of every bill connector: adapt columns, validate, replace a period atomically."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import duckdb

from trainledger import queries
from trainledger.connectors import IngestResult
from trainledger.errors import InputError
from trainledger.warehouse import Connection


def create_raw_view(con: Connection, name: str, relation: duckdb.DuckDBPyRelation) -> None:
    """Expose a file scan under a fixed view name so the normalising SQL can stay a plain file."""
    con.execute(f'DROP VIEW IF EXISTS "{name}"')
    relation.create_view(name, replace=True)


def view_columns(con: Connection, view: str) -> dict[str, str]:
    cur = con.execute(f'SELECT * FROM "{view}" LIMIT 0')
    return {d[0]: str(d[1]) for d in cur.description or []}


def add_missing_columns(
    con: Connection, view: str, optional: dict[str, str], required: Iterable[str], where: str, what: str
) -> None:
    """Fail on a missing required column; give absent optional ones typed NULLs (schemas vary by month)."""
    columns = view_columns(con, view)
    lowered = {c.lower(): c for c in columns}
    missing = [c for c in required if c.lower() not in lowered]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise InputError(f"{where}: not a {what} file: missing column(s) {shown}")
    extra = [
        f'CAST(NULL AS {sql_type}) AS "{col}"'
        for col, sql_type in optional.items()
        if col.lower() not in lowered
    ]
    if extra:
        con.execute(
            f'CREATE OR REPLACE TEMP VIEW "{view}_full" AS SELECT *, {", ".join(extra)} FROM "{view}"'
        )
    else:
        con.execute(f'CREATE OR REPLACE TEMP VIEW "{view}_full" AS SELECT * FROM "{view}"')


def first_problem(con: Connection, query: str, params: dict[str, Any]) -> None:
    """Run a validation query; its first row (file, row, column, problem) becomes one InputError line."""
    row = con.execute(queries.load(query), params).fetchone()
    if row:
        file, line, column, problem = row
        where = f"{file}, row {line}" if line is not None else f"{file}"
        raise InputError(f"{where}, column {column}: {problem}")


def replace_period(
    con: Connection,
    *,
    source: str,
    period: str,
    staged: str,
    version: str,
    files: Sequence[str],
) -> IngestResult:
    """Swap the period's charges for the staged rows; the caller's transaction makes it atomic."""
    con.execute(
        "DELETE FROM charges WHERE source = $source AND billing_period = $period",
        {"source": source, "period": period},
    )
    con.execute(
        f'INSERT INTO charges BY NAME SELECT * FROM "{staged}" WHERE billing_period = $period',
        {"period": period},
    )
    count, total = con.execute(
        "SELECT count(*), sum(billed_cost) FROM charges WHERE source = $source AND billing_period = $period",
        {"source": source, "period": period},
    ).fetchone() or (0, None)
    con.execute(
        "INSERT OR REPLACE INTO ingest_state VALUES ($source, $period, $version, $files, $rows, $total, $at)",
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
    return IngestResult(
        source,
        period,
        int(count),
        Decimal(total) if total is not None else None,
        version=version,
        files=list(files),
    )


def known_version(con: Connection, source: str, period: str) -> str | None:
    row = con.execute(
        "SELECT version FROM ingest_state WHERE source = $source AND billing_period = $period",
        {"source": source, "period": period},
    ).fetchone()
    return row[0] if row else None


def show_files_as(con: Connection, view: str, names: dict[str, str] | None) -> None:
    """Make ``view``'s ``filename`` column read as the original location (``s3://...``), not the cache path.

    Charges keep ``source_file`` and errors name the file, so both should point where the user can look.
    """
    if not names:
        return
    con.execute("CREATE OR REPLACE TEMP TABLE raw_file_names (local VARCHAR, display VARCHAR)")
    con.executemany("INSERT INTO raw_file_names VALUES (?, ?)", sorted(names.items()))
    con.execute(f'DROP VIEW IF EXISTS "{view}_local"')
    con.execute(f'ALTER VIEW "{view}" RENAME TO "{view}_local"')
    con.execute(
        f'CREATE TEMP VIEW "{view}" AS SELECT v.* REPLACE (coalesce(n.display, v.filename) AS filename) '
        f'FROM "{view}_local" v LEFT JOIN raw_file_names n ON n.local = v.filename'
    )


def staged_periods(con: Connection, staged: str = "staged_charges") -> list[str]:
    return [
        r[0] for r in con.execute(f'SELECT DISTINCT billing_period FROM "{staged}" ORDER BY 1').fetchall()
    ]


ResourceRow = tuple[str, str, str, str | None, str | None, str, list[str] | None]


def record_resources(con: Connection, rows: Sequence[ResourceRow], seen: datetime) -> None:
    """Upsert one inventory pull: (provider, resource_id, source, type, region, tags JSON, aliases) rows;
    first_seen is kept for known resources, last_seen becomes ``seen``."""
    con.execute("CREATE OR REPLACE TEMP TABLE seen_resources AS SELECT * FROM resources LIMIT 0")
    con.execute("ALTER TABLE seen_resources DROP COLUMN first_seen")
    con.execute("ALTER TABLE seen_resources DROP COLUMN last_seen")
    if rows:
        con.executemany("INSERT INTO seen_resources VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    con.execute(queries.load("upsert_resources"), {"now": seen})
