"""Loading the experiment log into the warehouse: experiments, their resource windows and estimates.

An experiment's estimate comes from the log when it gives one; otherwise from the estimator on its params,
whose result is kept in full (``estimator_results``) either way.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from trainledger.core.config import Config
from trainledger.core.currencies import ISO_4217
from trainledger.core.errors import InputError
from trainledger.core.gc_pause import no_cycle_collection
from trainledger.core.json_lines import LIMIT, field_path, shown
from trainledger.core.labels import LabelScheme
from trainledger.core.money import to_decimal
from trainledger.core.reporter import Reporter
from trainledger.estimate import model as estimator
from trainledger.estimate.gpu_list_prices import GpuListPrices
from trainledger.experiments.log import Experiment, LogContent, build, merge, read_log
from trainledger.warehouse.connection import Connection, insert_rows, memory_lent, run


def estimate_rows(experiment: Experiment, where: str) -> list[tuple[str, str | None, str, Decimal]]:
    """(phase, category, currency, amount) from the log's ``estimate``: ``{"train": 1800}`` or
    ``{"train": {"compute": 1500, "storage": 300}}``."""
    estimate = experiment.estimate
    currency = str(estimate.get("currency", "USD")).strip().upper()
    if currency not in ISO_4217:
        raise InputError(
            f"{where}: field estimate.currency: expected an ISO 4217 currency code such as USD, "
            f"got {estimate['currency']!r}"
        )
    rows = []
    for phase, value in estimate.items():
        if phase == "currency":
            continue
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for category, amount in items:
            field = field_path("estimate", str(phase))
            field = field_path(field, str(category)) if category is not None else field
            try:
                money = to_decimal(amount)
            except ValueError:
                raise InputError(f"{where}: field {field}: expected a number, got {amount!r}") from None
            if abs(money) >= LIMIT:
                raise InputError(
                    f"{where}: field {field}: expected an amount below 10^26, got {shown(money)}"
                )
            rows.append((phase, category, currency, money))
    return rows


EstimateRow = tuple[str, str, str | None, str, Decimal, str, str | None]


def _run_estimator(
    config: Config, catalog: GpuListPrices | None, e: Experiment, where: str, reporter: Reporter
) -> tuple[tuple[str, bool, str] | None, list[EstimateRow]]:
    """The estimator on the experiment's params: its result row, and its money when the log has no estimate."""
    if not e.params:
        if not e.estimate:
            reporter.warn(
                f"{where}: experiment {e.experiment_id} has neither estimate nor params to estimate from"
            )
        return None, []
    result = estimator.estimate(e.method, e.params, config.estimator, catalog, f"{where}: {e.experiment_id}")
    fill_in = not estimate_rows(e, where)
    detail = (e.experiment_id, fill_in, json.dumps(result.to_json()))
    if not fill_in:
        return detail, []
    rows: list[EstimateRow] = [
        (e.experiment_id, p.phase, p.category, result.currency, p.cost, "estimator", p.spend)
        for p in result.phases()
        if p.cost is not None
    ]
    if result.missing:
        reporter.detail(f"estimator, {e.experiment_id}: missing {'; '.join(result.missing)}")
    if not rows:
        reporter.warn(f"{where}: no estimate for {e.experiment_id}: {'; '.join(result.missing)}")
    return detail, rows


LENT = "128MB"  # what DuckDB keeps while the log is built: enough for the log's own inserts


def load(con: Connection, config: Config, reporter: Reporter, log: LogContent | None = None) -> int:
    """Replace the experiments tables with the log's current state (``log``: as already read, else read
    now); returns the experiment count. Without a log configured the tables are left as they are."""
    log = log or read_log(config, reporter)
    if log is None:
        return 0
    # The log's records (about 6 KB each) would otherwise come on top of the bill DuckDB keeps cached after
    # an ingest: at 200,000 experiments the two made 3 GiB.
    with no_cycle_collection(), memory_lent(con, config, LENT):
        return _load(con, config, reporter, log)


def _load(con: Connection, config: Config, reporter: Reporter, log: LogContent) -> int:
    scheme = LabelScheme(config.labels)
    merged = merge(log.records(), reporter)
    for name in (
        "experiments/clear_experiments",
        "experiments/clear_windows",
        "experiments/clear_estimates",
        "experiments/clear_estimator_results",
    ):
        run(con, name)
    catalog = GpuListPrices.from_warehouse(con)
    rows: list[tuple[Any, ...]] = []
    windows: list[tuple[Any, ...]] = []
    estimates: list[EstimateRow] = []
    results: list[tuple[str, bool, str]] = []
    count = len(merged)
    for key in list(merged):  # in log order, each record freed once its rows are made
        where, record = merged.pop(key)
        e = build(where, record, scheme)
        rows.append(
            (
                e.experiment_id,
                e.project,
                e.method,
                e.status,
                e.started_at,
                e.ended_at,
                json.dumps(e.params, default=str),
                json.dumps(e.estimate, default=str),
                json.dumps(e.metrics, default=str),
                json.dumps(e.record, default=str, sort_keys=True),
            )
        )
        windows.extend(
            (e.experiment_id, w.phase, w.provider, w.resource_id, w.gpus, w.started_at, w.ended_at)
            for w in e.windows
        )
        estimates.extend(
            (e.experiment_id, phase, category, currency, amount, "log", None)
            for phase, category, currency, amount in estimate_rows(e, where)
        )
        detail, estimated = _run_estimator(config, catalog, e, where, reporter)
        if detail is not None:
            results.append(detail)
        estimates.extend(estimated)
    insert_rows(con, "experiments", rows)
    insert_rows(con, "experiment_resources", windows)
    insert_rows(con, "estimates", estimates)
    insert_rows(con, "estimator_results", results)
    reporter.step(f"experiment log: {count} experiment(s)")
    return count
