"""The estimator's MFU defaults calibrated from your own finished runs: the estimate improves with each run.

For a method and GPU type, every succeeded run whose bill is complete gives, per phase, the implied MFU
that reconcile reports (the estimator's FLOPs / (realized compute cost / price per GPU hour x peak)); the
median over the runs becomes that phase's default MFU, stated with the runs it comes from. The implied MFU
carries whatever those runs spent on evaluations, restarts and idle time inside their phase.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # DuckDB and polars load when a warehouse is read, not with the estimator
    from trainledger.warehouse.connection import Connection


@dataclass(frozen=True)
class Calibrated:
    value: Decimal
    runs: tuple[str, ...]


@dataclass(frozen=True)
class Calibration:
    method: str
    gpu: str
    phases: dict[str, Calibrated]

    def source(self, phase: str) -> str:
        found = self.phases[phase]
        ids = ", ".join(found.runs)
        runs = "1 run" if len(found.runs) == 1 else f"{len(found.runs)} runs"
        return (
            f"calibrated from {runs} ({ids}): median implied MFU of their {phase} phase "
            f"({self.method} on {self.gpu}; --no-calibration for the textbook defaults)"
        )


Lookup = Callable[[str, str], Calibration | None]


def from_warehouse(con: Connection) -> Lookup:
    """A lookup of (method, GPU) -> calibration over the warehouse's reconciled runs: each run's implied
    MFU (``implied.mfu``, to 12 places) where it lies in (0, 1] (above 1 the bill is partial or discounted
    below the price used), and per phase their median, rounded half-even to the 0.0001 the estimator uses."""
    import polars as pl

    from trainledger.core.frames import MONEY, Schema, frame, ratio
    from trainledger.estimate.implied import gpu_hours, mfu
    from trainledger.warehouse.connection import arrow

    runs: Schema = {
        "experiment_id": pl.String,
        "phase": pl.String,
        "flops": pl.Decimal(38, 0),
        "cost": MONEY,
        "price": MONEY,
        "peak": MONEY,
    }

    def lookup(method: str, gpu: str) -> Calibration | None:
        found = frame(arrow(con, "estimate/calibration_runs", {"method": method, "gpu": gpu}), runs)
        rate = mfu(pl.col("flops"), gpu_hours(pl.col("cost"), pl.col("price")), pl.col("peak"), 12)
        sorted_rates = pl.col("rate").sort()
        medians = (
            found.with_columns(rate.alias("rate"))
            .filter((pl.col("rate") > 0) & (pl.col("rate") <= 1))
            .group_by("phase", maintain_order=True)
            .agg(
                pl.col("experiment_id"),
                sorted_rates.get((pl.len() - 1) // 2).alias("low"),
                sorted_rates.get(pl.len() // 2).alias("high"),
            )
            .with_columns(ratio(pl.col("low") + pl.col("high"), pl.lit(Decimal(2), MONEY), 4).alias("median"))
        )
        if medians.is_empty():
            return None
        return Calibration(
            method,
            gpu,
            {
                phase: Calibrated(value, tuple(runs))
                for phase, runs, value in medians.select("phase", "experiment_id", "median").iter_rows()
            },
        )

    return lookup
