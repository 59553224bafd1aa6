"""The batch jobs: ingest, attribute and nightly, each one warehouse transaction, each in the run ledger.

A run holds the warehouse's write lock from start to end (one writer at a time). Its ingest, experiment
log and attribution commit together or not at all: a failure rolls back and is recorded as a failed run;
a kill leaves the warehouse as it was. Exports and the budget check of `nightly` follow the commit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from trainledger.attribution import allocations
from trainledger.connectors import IngestResult, staging
from trainledger.connectors.bill_loader import connector_for
from trainledger.core.config import Config
from trainledger.core.money import fmt
from trainledger.core.redaction import stored_secrets
from trainledger.core.reporter import Repeats, Reporter
from trainledger.experiments.log import LogContent, read_log
from trainledger.pipeline import experiments_loader
from trainledger.warehouse import run_ledger, step_state
from trainledger.warehouse.connection import Connection, open_warehouse, transaction, warehouse_fault
from trainledger.warehouse.run_ledger import BatchRun


@dataclass
class RunSummary:
    ingested: list[IngestResult] = field(default_factory=list)
    experiments: int = 0
    attribution: allocations.AttributionResult | None = None
    exports: list[Path] = field(default_factory=list)
    alerts: list[dict[str, object]] = field(default_factory=list)
    alerts_file: Path | None = None
    # BilledCost per currency of each ingested (source, period); never summed across currencies.
    billed: dict[tuple[str, str | None], dict[str, Decimal]] = field(default_factory=dict)
    # Allocated BilledCost and EffectiveCost per currency.
    allocated: dict[str, dict[str, Decimal]] = field(default_factory=dict)


def ingest_sources(
    con: Connection, config: Config, reporter: Reporter, source: str | None, period: str | None
) -> list[IngestResult]:
    selected = [config.source(source)] if source else [s for s in config.sources if s.enabled]
    results: list[IngestResult] = []
    for src in selected:
        try:
            results.extend(connector_for(src)(con, src, config, period, reporter))
        except staging.READ_ERRORS as exc:  # a bill DuckDB cannot read, unless the fault is the warehouse's
            raise warehouse_fault(exc, config.warehouse_path()) or staging.unreadable(src.name, exc) from None
    return results


def _ingest(
    con: Connection,
    config: Config,
    reporter: Reporter,
    run: BatchRun,
    summary: RunSummary,
    source: str | None,
    period: str | None,
) -> None:
    summary.ingested = ingest_sources(con, config, reporter, source, period)
    entries = []
    for r in summary.ingested:
        totals = {} if r.skipped else run_ledger.currency_totals(con, r.source, r.period)
        if totals:
            summary.billed[(r.source, r.period)] = {c: total for c, (_, total) in totals.items()}
        if len(totals) > 1:
            shown = ", ".join(f"{c}: {rows} row{'s' * (rows != 1)}" for c, (rows, _) in totals.items())
            reporter.warn(
                f"{r.source} {r.period}: charges in {len(totals)} currencies ({shown}); "
                "totals are kept per currency, never added"
            )
        entries.append(r.ledger_entry(totals))
    run.detail["sources"] = entries


LogReading = Callable[[], LogContent | None]


def _read_ahead(config: Config, reporter: Reporter) -> LogReading:
    """Read the experiment log (a bucket, an MLflow server) before the write lock is taken, so a slow or
    dead server never holds the warehouse; a failure is raised later, inside the run, so that the run
    ledger records it like any other."""
    try:
        log = read_log(config, reporter)
    except Exception as exc:
        failure = exc

        def failed() -> LogContent | None:
            raise failure

        return failed
    return lambda: log


def _load_experiments(
    con: Connection, config: Config, reporter: Reporter, run: BatchRun, summary: RunSummary, read: LogReading
) -> str:
    """Reload the experiment log as ``read`` ahead of the lock, unless it and what its tables depend on
    are unchanged since the last load; returns the fingerprint of those inputs."""
    log = read()
    fingerprint = step_state.experiments_fingerprint(con, config, log.digest() if log else None)
    state = step_state.unchanged(con, "experiments", fingerprint)
    if state is not None:
        summary.experiments = int(state.detail["experiments"])
        reporter.detail(f"experiment log unchanged: {summary.experiments} experiment(s)")
        _unchanged(run, "experiments")
    elif log is not None:
        summary.experiments = experiments_loader.load(con, config, reporter, log)
        step_state.record(con, "experiments", fingerprint, {"experiments": summary.experiments})
    run.detail["experiments"] = summary.experiments
    return fingerprint


def _unchanged(run: BatchRun, step: str) -> None:
    run.detail.setdefault("unchanged", []).append(step)


def _attribute(
    con: Connection,
    config: Config,
    reporter: Reporter,
    run: BatchRun,
    summary: RunSummary,
    period: str | None,
    experiments_fingerprint: str,
    skip_unchanged: bool = False,
) -> str:
    """Attribute ``period`` (None: every period); with ``skip_unchanged``, not when nothing attribution
    reads changed since the last complete one. Returns the fingerprint of attribution's inputs."""
    fingerprint = step_state.attribution_fingerprint(con, config, experiments_fingerprint)
    state = step_state.unchanged(con, "attribution", fingerprint) if skip_unchanged else None
    if state is not None:
        done = state.detail
        summary.attribution = allocations.AttributionResult(
            done["periods"], done["allocations"], Decimal(done["billed_total"])
        )
        summary.allocated = {
            c: {k: Decimal(v) for k, v in totals.items()} for c, totals in done["allocated"].items()
        }
        reporter.step(f"inputs unchanged: {done['allocations']} allocation(s) kept")
        _unchanged(run, "attribution")
    else:
        result = allocations.attribute(con, config, reporter, period)
        summary.attribution = result
        summary.allocated = run_ledger.allocation_totals(con, result.periods)
        if period is None:
            step_state.record(
                con,
                "attribution",
                fingerprint,
                {
                    "periods": result.periods,
                    "allocations": result.allocations,
                    "billed_total": str(result.billed_total),
                    "allocated": {c: {k: str(v) for k, v in t.items()} for c, t in summary.allocated.items()},
                },
            )
    assert summary.attribution is not None
    run.detail["attribution"] = {
        "periods": summary.attribution.periods,
        "allocations": summary.attribution.allocations,
        "totals": {c: {k: fmt(v) for k, v in t.items()} for c, t in summary.allocated.items()},
    }
    return fingerprint


@contextmanager
def _summarised(reporter: Reporter) -> Iterator[Reporter]:
    """Repeated warnings as the first few and a count (core/reporter.py), the count said at the end."""
    repeats = Repeats(reporter)
    try:
        yield repeats
    finally:
        repeats.close()


@contextmanager
def _writing(config: Config, run: BatchRun, reporter: Reporter) -> Iterator[Connection]:
    """The warehouse open for writing (waiting for the lock); the run is recorded as failed if the block
    raises, after the block's transaction has rolled back."""
    asked = time.monotonic()
    with open_warehouse(config, write=True, notify=reporter.step) as con, run_ledger.recorded(con, run):
        run.detail["lock_wait_s"] = round(time.monotonic() - asked, 3)
        yield con


def ingest(
    config: Config, reporter: Reporter, source: str | None = None, period: str | None = None
) -> RunSummary:
    with _summarised(reporter) as reporter:
        run = BatchRun("ingest", {"source": source, "period": period}, secrets=stored_secrets(config))
        summary = RunSummary()
        read = _read_ahead(config, reporter)
        with _writing(config, run, reporter) as con, transaction(con):
            _ingest(con, config, reporter, run, summary, source, period)
            _load_experiments(con, config, reporter, run, summary, read)
            run_ledger.write(con, run, "ok")
        return summary


def attribute(config: Config, reporter: Reporter, period: str | None = None) -> RunSummary:
    with _summarised(reporter) as reporter:
        run = BatchRun("attribute", {"period": period}, secrets=stored_secrets(config))
        summary = RunSummary()
        read = _read_ahead(config, reporter)
        with _writing(config, run, reporter) as con, transaction(con):
            log = _load_experiments(con, config, reporter, run, summary, read)
            _attribute(con, config, reporter, run, summary, period, log)
            run_ledger.write(con, run, "ok")
        return summary


def nightly(config: Config, reporter: Reporter, alerts_out: str | None = None) -> RunSummary:
    """Ingest every source, reload the log, re-attribute, all in one transaction; then exports and budgets,
    whose alerts go to ``alerts_out`` (else ``<[exports] dir>/alerts.json``) and the webhook.

    A step whose inputs did not change since its last complete run is skipped (the experiment log's
    reload, attribution, an export whose file is as written), so a night without new data costs little.
    """
    from trainledger.outputs import alerts, export
    from trainledger.reports import budgets

    with _summarised(reporter) as reporter:
        run = BatchRun("nightly", secrets=stored_secrets(config))
        summary = RunSummary()
        read = _read_ahead(config, reporter)
        with _writing(config, run, reporter) as con:
            with transaction(con):
                _ingest(con, config, reporter, run, summary, None, None)
                log = _load_experiments(con, config, reporter, run, summary, read)
                attributed = _attribute(con, config, reporter, run, summary, None, log, skip_unchanged=True)
                run_ledger.write(con, run, "incomplete")  # until the exports and alerts are done
            run.committed = True
            if config.exports.dir:
                exported = export.write_period_exports(con, config, reporter, attributed)
                summary.exports = [path for path, _ in exported]
                run.detail["exports"] = [str(p) for p in summary.exports]
                if exported and all(kept for _, kept in exported):
                    _unchanged(run, "exports")
            if config.exports.site:
                from trainledger.outputs import site

                folder = Path(config.resolve(config.exports.site))
                site.publish.remove_stale(folder)  # a killed run's; this run holds the write lock
                run.detail["site"] = str(site.write_site(con, config, folder, reporter))
            summary.alerts = budgets.check(con, config, reporter)
            summary.alerts_file = budgets.alerts_path(config, alerts_out)
            alerts.publish(con, config, summary.alerts, summary.alerts_file, reporter)
            run.detail["alerts"] = len(summary.alerts)
            run_ledger.write(con, run, "ok")
        return summary
