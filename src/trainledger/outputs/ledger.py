"""The Python API: ``trainledger.open()`` returns a read-only ``Ledger`` whose methods return polars frames.

Each method runs the query the matching command runs and hands over its result as a frame (money as
``pl.Decimal(38, 12)``, exact), so its rows equal what the command prints with ``--format json``:
``costs`` is `report`, ``waste`` is `report --by waste,...`, ``experiments`` is `experiments`,
``reconcile`` is `reconcile` (the frames of ``reports/compare.py``), ``estimate`` is `estimate`.
``allocations`` is lazy: a ``polars.LazyFrame`` over the warehouse's Arrow batches, read when collected.
Errors are trainledger's own exceptions (``core/errors.py``), never ``SystemExit``.

Each call opens the warehouse read-only for its own duration and closes it, so a notebook left open never
holds the file; while a batch run writes it, a call reads the last committed state instead of waiting
(``warehouse/snapshot.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

from trainledger.core.config import Config
from trainledger.core.errors import NotFound, TrainledgerError
from trainledger.core.frames import MONEY
from trainledger.reports.realize import GRANULARITIES
from trainledger.warehouse.connection import Connection, open_warehouse, run
from trainledger.warehouse.snapshot import Snapshots

if TYPE_CHECKING:
    from trainledger.reports.reconcile import Compared

_PERIOD = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


@dataclass
class Reconciled:
    """`reconcile` of one or more experiments as frames. ``rows``: the JSON's rows (phase, category,
    estimated, realized, variance, variance_pct, spend), with ``experiment_id`` first when several;
    ``experiments``: one row per experiment with the JSON's currency, billing_complete_through,
    provisional, totals (estimated, realized, variance) and waste (idle, failed, unused_commitment), then
    what the post-mortem adds (the headline over the estimated lines, the eval and waste shares, cost per
    point); ``assumptions``: the JSON's, per experiment id."""

    rows: pl.DataFrame
    experiments: pl.DataFrame
    assumptions: dict[str, dict[str, Any]]

    def to_arrow(self) -> pa.Table:
        return self.rows.to_arrow()


@dataclass
class Estimated:
    """`estimate --format json` as frames: ``phases`` and ``components`` (money as Decimal(38, 12)), the
    ``total``, and the rest of the JSON (assumptions, missing, warnings, derivation) in ``detail``."""

    phases: pl.DataFrame
    components: pl.DataFrame
    total: Any
    detail: dict[str, Any]

    def to_arrow(self) -> pa.Table:
        return self.phases.to_arrow()


class Ledger:
    """A read-only view of the warehouse (``trainledger.open``)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._snapshots = Snapshots()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the copy of the warehouse a call read while a batch run wrote it, if any."""
        self._snapshots.close()

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with open_warehouse(self.config, write=False, busy=self._snapshots.copy) as con:
            yield con

    # --- `report` -----------------------------------------------------------------------------------
    def costs(
        self,
        by: Sequence[str] | str | None = None,
        period: str | None = None,
        since: date | str | None = None,
        until: date | str | None = None,
        granularity: str | None = None,
    ) -> pl.DataFrame:
        """`report --by ...`: EffectiveCost (and billed, list) by any dimensions and currency."""
        from trainledger.reports import realize
        from trainledger.reports.dimensions import parse_dimensions

        columns = parse_dimensions(_names(by) or "project,phase,method,category")
        if granularity is not None and granularity not in GRANULARITIES:
            raise TrainledgerError(f"granularity {granularity!r} is not one of {', '.join(GRANULARITIES)}")
        where = {"billing_period": _period(period)} if period is not None else None
        with self._reading() as con:
            table = realize.cost_table(
                con, columns, granularity, _date(since, "since"), _date(until, "until"), where
            )
        return _money(pl.from_arrow(table))

    def waste(
        self,
        by: Sequence[str] | str | None = None,
        period: str | None = None,
        since: date | str | None = None,
        until: date | str | None = None,
    ) -> pl.DataFrame:
        """`report --by waste,...`: cost by class (productive, idle, failed, rerun, unused-commitment,
        shared, unattributed) and ``by``."""
        return self.costs(["waste", *_names(by).split(",")] if by else ["waste"], period, since, until)

    # --- `experiments` ------------------------------------------------------------------------------
    def experiments(self, project: str | None = None, since: date | str | None = None) -> pl.DataFrame:
        """`experiments`: newest first, estimated vs realized in each one's currency."""
        from trainledger.reports import experiments

        with self._reading() as con:
            return experiments.known_frame(con, project, _date(since, "since"))

    # --- `reconcile` --------------------------------------------------------------------------------
    def reconcile(self, experiment_id: str) -> Reconciled:
        """`reconcile ID`: estimated vs realized by phase x category, waste, how complete the bill is."""
        found = self.reconcile_many([experiment_id])
        return Reconciled(found.rows.drop("experiment_id"), found.experiments, found.assumptions)

    def reconcile_many(self, experiment_ids: Sequence[str]) -> Reconciled:
        """`reconcile` of each id (the same comparison the site makes of every experiment at once)."""
        from trainledger.reports import experiments, reconcile

        ids = list(experiment_ids)
        with self._reading() as con:
            for experiment_id in ids:
                experiments.require(con, self.config, experiment_id)
            found = reconcile.compared(con, ids, self.config.reservations)
        return _reconciled(found)

    # --- `estimate` ---------------------------------------------------------------------------------
    def estimate(
        self,
        params: dict[str, Any] | None = None,
        method: str | None = None,
        experiment_id: str | None = None,
        calibrate: bool = True,
    ) -> Estimated:
        """`estimate --params FILE --method M` from a params dict, or `estimate ID` of a logged experiment;
        ``calibrate=False`` is `--no-calibration`."""
        from trainledger.estimate import param_sources
        from trainledger.reports import experiments

        if params is None:
            if experiment_id is None:
                raise TrainledgerError("give either params or experiment_id")
            with self._reading() as con:
                experiments.require(con, self.config, experiment_id, logged=True)
                result = param_sources.for_experiment(con, self.config, experiment_id, calibrate=calibrate)
            return _estimated(result.to_json())
        if experiment_id is not None:
            raise TrainledgerError("give either params or experiment_id, not both")
        chosen = param_sources.checked_method(method or params.get("method"), params, "params")
        plan = {k: v for k, v in params.items() if k != "method"}
        if not self.config.warehouse_path().exists():  # as `estimate --params` runs: no history, no prices
            return _estimated(param_sources.from_params(chosen, plan, self.config, None, "params").to_json())
        with self._reading() as con:
            result = param_sources.from_params(chosen, plan, self.config, con, "params", calibrate=calibrate)
        return _estimated(result.to_json())

    # --- allocations, lazily ------------------------------------------------------------------------
    def allocations(self, period: str) -> pl.LazyFrame:
        """The allocations of one billing period (the rows `export` sums), as a LazyFrame over Arrow
        batches read from the warehouse when it is collected: a large month never sits in Python."""
        params = {"period": _period(period)}
        with self._reading() as con:
            ((count,),) = run(con, "export/period_allocations", params).fetchall()
            if not count:
                raise NotFound(f"no allocations for billing period {period}; run `trainledger nightly` first")
            schema = _money(pl.from_arrow(_relation(con, params).limit(0).to_arrow_table())).schema

        def batches(
            columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, size: int | None
        ) -> Iterator[pl.DataFrame]:
            left = n_rows
            with self._reading() as con:
                reader = _relation(con, params).to_arrow_reader(size or 100_000)
                for batch in reader:
                    part = _money(pl.from_arrow(batch))
                    if predicate is not None:
                        part = part.filter(predicate)
                    if columns is not None:
                        part = part.select(columns)
                    if left is not None:
                        part = part.head(left)
                        left -= part.height
                    yield part
                    if left is not None and left <= 0:
                        return

        from polars.io.plugins import register_io_source

        return register_io_source(batches, schema=schema, explain_name="trainledger allocations")


def _relation(con: Connection, params: dict[str, Any]) -> Any:
    """The allocations of ``params['period']`` as DuckDB's relation (streamed as Arrow batches)."""
    from trainledger.core import queries

    return con.sql(queries.load("report/period_allocations"), params=params)


def _reconciled(found: Compared) -> Reconciled:
    """The comparison's frames with what the JSON adds per experiment (how complete the bill is)."""
    facts = pl.DataFrame(
        [(r.experiment_id, r.billing_complete_through, r.provisional) for r in found.reconciliations],
        schema={
            "experiment_id": pl.String,
            "billing_complete_through": pl.Datetime("us"),
            "provisional": pl.Boolean,
        },
        orient="row",
    )
    rows = found.lines.select(
        "experiment_id", "phase", "category", "estimated", "realized", "variance", "variance_pct", "spend"
    )
    s = found.summaries
    experiments = s.join(facts, on="experiment_id", how="left").select(
        "experiment_id",
        "currency",
        "billing_complete_through",
        "provisional",
        pl.col("estimated_total").alias("estimated"),
        "realized",
        pl.col("variance_total").alias("variance"),
        "idle",
        "failed",
        "unused_commitment",
        pl.col("estimated").alias("estimated_lines"),
        "realized_estimated",
        "headline_variance",
        "headline_pct",
        "unestimated",
        "unestimated_lines",
        "over",
        "under",
        "eval_share",
        pl.col("waste").alias("hidden_cost"),
        "waste_share",
        "target_points",
        "general_points",
        "cost_per_point",
    )
    assumptions = {r.experiment_id: r.assumptions for r in found.reconciliations}
    return Reconciled(rows, experiments, assumptions)


def _estimated(found: dict[str, Any]) -> Estimated:
    phases = pl.DataFrame(
        found["phases"],
        schema={
            "phase": pl.String,
            "category": pl.String,
            "flops": pl.Decimal(38, 0),
            "gpu_hours": pl.String,
            "cost": pl.String,
            "spend": pl.String,
        },
    )
    components = pl.DataFrame(
        found["components"],
        schema={
            "phase": pl.String,
            "category": pl.String,
            "work": pl.String,
            "params_b": pl.String,
            "tokens": pl.Decimal(38, 0),
            "flops": pl.Decimal(38, 0),
            "rate": pl.String,
            "gpu_hours": pl.String,
            "cost": pl.String,
            "spend": pl.String,
        },
    )
    decimals = pl.col("gpu_hours", "cost").cast(MONEY)  # money, and hours at the JSON's 4 places
    detail = {k: v for k, v in found.items() if k not in ("phases", "components", "total")}
    total = found["total"]
    return Estimated(
        phases.with_columns(decimals),
        components.with_columns(decimals, pl.col("params_b").cast(MONEY)),
        None if total is None else pl.Series([total]).cast(MONEY).item(),
        detail,
    )


def _money(found: pl.DataFrame | pl.Series) -> pl.DataFrame:
    """A result's decimal columns as Decimal(38, 12) (an engine's sum may come back at another scale)."""
    assert isinstance(found, pl.DataFrame)
    return found.cast({c: MONEY for c, t in found.schema.items() if isinstance(t, pl.Decimal)})


def _names(by: Sequence[str] | str | None) -> str:
    return by if isinstance(by, str) else ",".join(by or [])


def _period(value: str) -> str:
    if not isinstance(value, str) or not _PERIOD.fullmatch(value):
        raise TrainledgerError(f"period: expected YYYY-MM, got {value!r}")
    return value


def _date(value: date | str | None, name: str) -> date | None:
    if value is None or isinstance(value, date):
        return value.date() if isinstance(value, datetime) else value
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise TrainledgerError(f"{name}: expected a date YYYY-MM-DD, got {value!r}") from None


def open_ledger(config: str | Path | Config | None = None, warehouse: str | Path | None = None) -> Ledger:
    """``trainledger.open``: the config as the CLI finds it (``config``, else $TRAINLEDGER_CONFIG, else
    ./trainledger.toml; a Config object as is), ``warehouse`` over its path ($TRAINLEDGER_WAREHOUSE
    likewise). Without a config file, the defaults when a warehouse is named."""
    from trainledger.core import config as config_module

    if isinstance(config, Config):
        if warehouse is None:
            return Ledger(config)
        path = str(Path(warehouse).resolve())
        return Ledger(
            config.model_copy(update={"warehouse": config.warehouse.model_copy(update={"path": path})})
        )
    named = warehouse is not None
    return Ledger(
        config_module.load(
            None if config is None else str(config),
            None if warehouse is None else str(warehouse),
            required=config is not None or not named,
        )
    )
