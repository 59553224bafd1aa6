"""The estimator's MFU defaults calibrated from your own finished runs: the estimate improves with each run.

For a method and GPU type, every succeeded run whose bill is complete gives, per phase, the implied MFU
that reconcile reports (the estimator's FLOPs / (realized compute cost / price per GPU hour x peak)); the
median over the runs becomes that phase's default MFU, stated with the runs it comes from. The implied MFU
carries whatever those runs spent on evaluations, restarts and idle time inside their phase.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, localcontext
from statistics import median
from typing import TYPE_CHECKING

from trainledger.estimate.result import ARITHMETIC

if TYPE_CHECKING:  # DuckDB loads when a warehouse is read, not with the estimator
    from trainledger.warehouse.connection import Connection

TERA = Decimal(10) ** 12


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


def implied_mfu(flops: Decimal, cost: Decimal, price: Decimal, peak_tflops: Decimal) -> Decimal:
    with localcontext(ARITHMETIC):
        return flops / (cost / price * 3600 * peak_tflops * TERA)


def from_warehouse(con: Connection) -> Lookup:
    """A lookup of (method, GPU) -> calibration over the warehouse's reconciled runs."""
    from trainledger.warehouse.connection import run

    def lookup(method: str, gpu: str) -> Calibration | None:
        by_phase: dict[str, list[tuple[str, Decimal]]] = {}
        for experiment_id, phase, flops, cost, price, peak in run(
            con, "estimate/calibration_runs", {"method": method, "gpu": gpu}
        ).fetchall():
            mfu = implied_mfu(Decimal(flops), Decimal(cost), Decimal(price), Decimal(peak))
            if 0 < mfu <= 1:  # above 1 the bill is partial or discounted below the price used
                by_phase.setdefault(phase, []).append((experiment_id, mfu))
        if not by_phase:
            return None
        return Calibration(
            method,
            gpu,
            {
                phase: Calibrated(median(m for _, m in runs), tuple(e for e, _ in runs))
                for phase, runs in by_phase.items()
            },
        )

    return lookup
