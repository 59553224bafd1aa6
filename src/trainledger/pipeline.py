"""The batch jobs: ingest, attribute and nightly, each one warehouse transaction."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from trainledger import attribution, experiments
from trainledger.config import Config
from trainledger.connectors import IngestResult, connector_for
from trainledger.reporter import Reporter
from trainledger.warehouse import Connection, open_warehouse, transaction


@dataclass
class RunSummary:
    ingested: list[IngestResult] = field(default_factory=list)
    experiments: int = 0
    attribution: attribution.AttributionResult | None = None
    exports: list[Path] = field(default_factory=list)
    alerts: list[dict[str, object]] = field(default_factory=list)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def ingest_sources(
    con: Connection, config: Config, reporter: Reporter, source: str | None, period: str | None
) -> list[IngestResult]:
    selected = [config.source(source)] if source else [s for s in config.sources if s.enabled]
    results: list[IngestResult] = []
    for src in selected:
        results.extend(connector_for(src)(con, src, config, period, reporter))
    return results


def _record_run(con: Connection, command: str, started: datetime, summary: RunSummary) -> None:
    detail = {
        "sources": [
            {
                "source": r.source,
                "period": r.period,
                "rows": r.rows,
                "skipped": r.skipped,
                "version": r.version,
                "billed_total": str(r.billed_total) if r.billed_total is not None else None,
            }
            for r in summary.ingested
        ],
        "experiments": summary.experiments,
        "allocations": summary.attribution.allocations if summary.attribution else None,
    }
    con.execute(
        "INSERT INTO runs VALUES ($id, $command, $start, $end, 'ok', $detail)",
        {
            "id": str(uuid.uuid4()),
            "command": command,
            "start": started,
            "end": _now(),
            "detail": json.dumps(detail),
        },
    )


def ingest(
    config: Config, reporter: Reporter, source: str | None = None, period: str | None = None
) -> RunSummary:
    started = _now()
    summary = RunSummary()
    with open_warehouse(config, write=True) as con, transaction(con):
        summary.ingested = ingest_sources(con, config, reporter, source, period)
        summary.experiments = experiments.load(con, config, reporter)
        _record_run(con, "ingest", started, summary)
    return summary


def attribute(config: Config, reporter: Reporter, period: str | None = None) -> RunSummary:
    started = _now()
    summary = RunSummary()
    with open_warehouse(config, write=True) as con, transaction(con):
        summary.experiments = experiments.load(con, config, reporter)
        summary.attribution = attribution.attribute(con, config, reporter, period)
        _record_run(con, "attribute", started, summary)
    return summary


def nightly(config: Config, reporter: Reporter) -> RunSummary:
    """Ingest every source, reload the log, re-attribute, all in one transaction; then exports and budgets."""
    from trainledger import alerts, budgets, export

    started = _now()
    summary = RunSummary()
    with open_warehouse(config, write=True) as con:
        with transaction(con):
            summary.ingested = ingest_sources(con, config, reporter, None, None)
            summary.experiments = experiments.load(con, config, reporter)
            summary.attribution = attribution.attribute(con, config, reporter, None)
            _record_run(con, "nightly", started, summary)
        if config.exports.dir:
            summary.exports = export.write_period_exports(con, config, reporter)
        summary.alerts = budgets.check(con, config, reporter)
        alerts.deliver(con, config, summary.alerts, reporter)
    return summary
