"""What the realized cost says about the estimator's numbers: per phase, the GPU hours the bill implies and
the MFU those hours imply, beside the estimator's own assumptions (`reconcile`'s ``assumptions``), and the
one formula the calibration also uses over the history of reconciled runs (``calibration.py``).

Implied GPU hours = realized cloud compute cost / the price per GPU hour the estimator used (an on-demand
price: Savings Plans and committed-use discounts make it read low); implied MFU = the estimator's FLOPs /
(implied GPU hours x 3600 x peak FLOP/s). Logged GPU hours come from the experiment log's windows x GPUs.
Cloud compute only: an off-cloud ledger's compute (an LLM-judge API bill) bought no GPU hours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import polars as pl

from trainledger.core.frames import MONEY, Schema, integer, quotient, ratio, rows_frame, with_sign
from trainledger.core.money import fmt
from trainledger.core.vocabulary import phase_category_order

HOURS_NOTE = "realized compute cost / price_per_gpu_hour (on-demand: discounts make it read low)"
MFU_NOTE = "estimator FLOPs / (implied GPU hours x 3600 x peak FLOP/s)"


def gpu_hours(cost: pl.Expr, price: pl.Expr) -> pl.Expr:
    """The GPU hours a compute cost buys at a price per GPU hour (12 places, half-even)."""
    return pl.when(price != 0).then(cost / price)


def mfu(flops: pl.Expr, hours: pl.Expr, peak_tflops: pl.Expr, places: int) -> pl.Expr:
    """``flops`` (a whole number) / (``hours`` x 3600 x ``peak_tflops`` x 10^12), rounded half-even to
    ``places``: the denominator's count of 1e-12 units is its value x 10^12."""
    return quotient(flops.cast(pl.Decimal(38, 0)), integer(hours * 3600 * peak_tflops), places)


@dataclass
class Realized:
    """What reconciling one experiment knows of its compute: the estimator's result (its JSON; None when
    it did not run), the currency it is reconciled in, its realized cloud compute and logged GPU hours by
    phase."""

    detail: str | None
    currency: str
    cloud_compute: dict[str, Decimal]
    logged: dict[str, Decimal]


def assumptions(found: dict[str, Realized]) -> dict[str, dict[str, Any]]:
    """Per experiment, the estimator's assumptions plus, per phase, its FLOPs and GPU hours, the realized
    compute, and the implied GPU hours and MFU: every experiment's phases computed in one frame."""
    out: dict[str, dict[str, Any]] = {}
    rows: list[tuple[Any, ...]] = []
    for exp_id, r in found.items():
        if r.detail is None:
            out[exp_id] = _not_run(r.logged)
            continue
        detail = json.loads(r.detail)
        facts = {k: v["value"] for k, v in detail["assumptions"].items()}
        price = Decimal(facts["price_per_gpu_hour"]) if "price_per_gpu_hour" in facts else None
        peak = Decimal(facts["peak_tflops"]) if "peak_tflops" in facts else None
        same_money = price is not None and detail["currency"] == r.currency
        flops: dict[str, int] = {}
        hours: dict[str, Decimal] = {}
        for p in detail["phases"]:
            if p["category"] == "compute":
                if p["flops"] is not None:
                    flops[p["phase"]] = p["flops"]
                if p["gpu_hours"] is not None:
                    hours[p["phase"]] = Decimal(p["gpu_hours"])
        phases = set(flops) | set(r.cloud_compute) | set(r.logged)
        for phase in sorted(phases, key=lambda p: phase_category_order((p, ""))):
            cost = r.cloud_compute.get(phase)
            rows.append(
                (exp_id, phase, flops.get(phase), hours.get(phase), cost, price if same_money else None, peak)
            )
        out[exp_id] = _estimator(detail, r.currency, price is not None and not same_money)
    for exp_id, phase, row in _phases(rows):
        row["logged_gpu_hours"] = _q(found[exp_id].logged.get(phase), "0.01")
        out[exp_id]["compute"].append({"phase": phase, **{k: row[k] for k in FIGURES}})
    return out


def _not_run(logged: dict[str, Decimal]) -> dict[str, Any]:
    out: dict[str, Any] = {"estimator": "not run (no params in the log)"}
    if logged:
        out["compute"] = [
            {"phase": p, "logged_gpu_hours": _q(logged[p], "0.01")}
            for p in sorted(logged, key=lambda p: phase_category_order((p, "")))
        ]
    return out


def _estimator(detail: dict[str, Any], currency: str, other_money: bool) -> dict[str, Any]:
    out = {
        "estimator": {
            k: {"value": v["value"], "source": v["source"]} for k, v in detail["assumptions"].items()
        },
        "estimator_missing": detail["missing"],
        **({"estimator_warnings": detail["warnings"]} if detail.get("warnings") else {}),
        "estimator_total": detail["total"],
        "estimator_currency": detail["currency"],
        "compute": [],
        "implied_gpu_hours": HOURS_NOTE,
        "implied_mfu": MFU_NOTE,
    }
    if other_money:
        out["implied_gpu_hours"] = (
            f"not computed: estimator prices in {detail['currency']}, realized in {currency}"
        )
    return out


FIGURES = (
    "flops",
    "estimated_gpu_hours",
    "realized_compute",
    "implied_gpu_hours",
    "logged_gpu_hours",
    "implied_mfu",
)
PHASES: Schema = {
    "experiment_id": pl.String,
    "phase": pl.String,
    "flops": pl.Decimal(38, 0),
    "estimated_gpu_hours": MONEY,
    "cost": MONEY,
    "price": MONEY,
    "peak": MONEY,
}


def _phases(rows: list[tuple[Any, ...]]) -> list[tuple[str, str, dict[str, Any]]]:
    """The phases' figures, in order: FLOPs, estimated GPU hours (to 0.01), realized compute, implied GPU
    hours (0.01) and implied MFU (0.0001; none where the implied hours or the peak are 0)."""
    if not rows:
        return []
    implied = gpu_hours(pl.col("cost"), pl.col("price"))
    usable = (implied != 0) & (pl.col("peak") != 0)
    found = rows_frame(rows, PHASES).select(
        "experiment_id",
        "phase",
        "flops",
        "cost",
        pl.col("estimated_gpu_hours")
        .round(2, mode="half_to_even")
        .cast(pl.Decimal(38, 2))
        .alias("estimated"),
        ratio(pl.col("cost"), pl.col("price"), 2).alias("implied"),
        pl.when(usable).then(mfu(pl.col("flops"), implied, pl.col("peak"), 4)).alias("mfu"),
    )
    out: list[tuple[str, str, dict[str, Any]]] = []
    for exp_id, phase, flops, cost, estimated, hours, rate in found.iter_rows():
        price = rows[len(out)][5]
        negative = cost is not None and price is not None and (cost < 0) != (price < 0)
        out.append(
            (
                exp_id,
                phase,
                {
                    "flops": None if flops is None else int(flops),
                    "estimated_gpu_hours": _text(estimated),
                    "realized_compute": None if cost is None else fmt(cost),
                    "implied_gpu_hours": _text(with_sign(hours, negative)),
                    "implied_mfu": _text(with_sign(rate, negative)),
                },
            )
        )
    return out


def _text(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:f}"


def _q(value: Decimal | None, places: str) -> str | None:
    return None if value is None else f"{value.quantize(Decimal(places), ROUND_HALF_EVEN):f}"
