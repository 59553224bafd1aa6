"""What each step of a run was computed from, as fingerprints, so that a run on unchanged inputs skips it.

A fingerprint is a sha256 of everything a step's result depends on. The experiment log's: the log's
content (hashed before parsing), the label and estimator config, the price catalog and the provider table.
Attribution's: that, the version and row count of every ingested source period, the inventory's tags, the
label, category and allocation config, the provider table (its category rules), and trainledger's version
and attribution SQL. An export's: attribution's and the export's format and file. Table ``step_inputs``
keeps the fingerprint of the last complete run of each step and what it produced, written in the step's
own transaction: a rolled-back run leaves the previous one, and any change of input gives a new
fingerprint, so the step runs again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainledger import __version__
from trainledger.core import providers, queries
from trainledger.core.config import Config
from trainledger.warehouse.connection import Connection, run

# The query folders of attribution's rules: every query it runs lives there (tests check), so a changed
# rule changes the fingerprint and the next `nightly` attributes again.
ATTRIBUTION_SQL = ("attribute/", "checks/")


def digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def file_digest(path: Path) -> str | None:
    """The sha256 of a file's bytes, None when it is not there."""
    h = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def experiments_fingerprint(con: Connection, config: Config, log_digest: str | None) -> str:
    cursor = run(con, "ledger/fingerprint_prices")
    kept = [i for i, d in enumerate(cursor.description or []) if d[0] != "fetched_at"]  # when, not what
    prices = [[row[i] for i in kept] for row in cursor.fetchall()]
    return digest(
        "experiments",
        __version__,
        log_digest,
        config.experiments.model_dump(mode="json"),
        config.labels.model_dump(mode="json"),
        config.estimator.model_dump(mode="json"),
        prices,
        providers.as_data(),
    )


def attribution_fingerprint(con: Connection, config: Config, experiments: str) -> str:
    ingested = run(con, "ledger/fingerprint_ingested").fetchall()
    inventory = run(con, "ledger/fingerprint_inventory").fetchall()
    sql: list[Any] = [queries.load(name) for name in queries.names() if name.startswith(ATTRIBUTION_SQL)]
    if config.warehouse.engine != "duckdb":  # the engine's overrides and macro bodies are rules too
        sql.append(engine_sql(config.warehouse.engine))
    return digest(
        "attribution",
        __version__,
        sql,
        experiments,
        config.labels.model_dump(mode="json"),
        config.categories.model_dump(mode="json"),
        providers.as_data(),
        config.allocation.model_dump(mode="json"),
        [r.model_dump(mode="json") for r in config.reservations],
        ingested,
        inventory,
    )


def engine_sql(engine: str) -> list[tuple[str, str]]:
    """The texts of an engine's overrides and macro bodies (``queries/engines/<engine>/``), by name."""
    root = queries.directory() / "engines" / engine
    return [
        (p.relative_to(root).as_posix(), p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.sql"))
    ]


@dataclass(frozen=True)
class StepState:
    fingerprint: str
    detail: dict[str, Any]


def recorded(con: Connection, step: str) -> StepState | None:
    row = run(con, "ledger/step_read", {"step": step}).fetchone()
    return StepState(row[0], json.loads(row[1])) if row else None


def unchanged(con: Connection, step: str, fingerprint: str) -> StepState | None:
    """The step's last state when it was computed from these very inputs, else None."""
    state = recorded(con, step)
    return state if state is not None and state.fingerprint == fingerprint else None


def record(con: Connection, step: str, fingerprint: str, detail: dict[str, Any]) -> None:
    run(
        con,
        "ledger/step_write",
        {"step": step, "fingerprint": fingerprint, "detail": json.dumps(detail, sort_keys=True)},
    )
