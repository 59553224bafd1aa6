"""Estimated against realized, computed once in polars for one experiment or twenty thousand at once: the
lines of `reconcile` (variance, variance %, the lines nobody estimated, over or under), each experiment's
totals, headline, evaluation and waste shares and cost per metric point, and the method cost-benefit table.

The warehouse sums the money (exact DECIMAL(38, 12)) and hands over realized sums and estimate lines as
Arrow; this module joins and compares them. `reconcile`, the post-mortems, the site, `experiments`,
`report --with-metrics` and the Python API all read their figures from here: there is no other
comparison. Money stays ``pl.Decimal(38, 12)``: differences are exact, and every ratio is the exact
quotient rounded half-even at the places it is shown (``core/frames.ratio``).
"""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from trainledger.core.frames import MONEY, Schema, ratio
from trainledger.core.providers import LLM_API
from trainledger.core.vocabulary import PHASE_ORDER, PHASES

KEYS = ["experiment_id", "phase", "category", "spend"]
ESTIMATES: Schema = {
    "experiment_id": pl.String,
    "phase": pl.String,
    "category": pl.String,
    "spend": pl.String,
    "currency": pl.String,
    "estimated": MONEY,
    "basis": pl.String,
}
REALIZED: Schema = {
    "experiment_id": pl.String,
    "phase": pl.String,
    "category": pl.String,
    "spend": pl.String,
    "currency": pl.String,
    "realized": MONEY,
    "cloud_compute": MONEY,
}
POINTS = pl.Decimal(38, 2)  # metric gains: 1 point = 0.01 of a 0-1 metric, to the hundredth
# Per experiment: the currency it is reconciled in, and what the comparison adds to its totals (waste from
# attribution/waste.py, metric points from the log's metrics, reports/benefit.py).
EXPERIMENTS: Schema = {
    "experiment_id": pl.String,
    "currency": pl.String,
    "idle": MONEY,
    "failed": MONEY,
    "unused_commitment": MONEY,
    "target_points": POINTS,
    "general_points": POINTS,
}
EVAL = "eval"


def _positive(value: pl.Expr) -> pl.Expr:
    return pl.when(value > 0).then(value)


def line_order() -> list[pl.Expr]:
    """The order `reconcile` lists lines in: phases in pipeline order (any other after, by name), then the
    category, a model API's line after the cloud line of its phase (``core.vocabulary.phase_category_order``)."""
    rank = pl.col("phase").replace_strict(PHASE_ORDER, default=len(PHASES), return_dtype=pl.Int32)
    return [rank, pl.col("phase"), pl.col("category"), pl.col("spend") == LLM_API]


def lines(estimates: pl.DataFrame, realized: pl.DataFrame, chosen: pl.DataFrame) -> pl.DataFrame:
    """Each experiment's lines in its currency (``chosen``: experiment_id, currency): estimated (null: no
    estimate), realized (0 where nothing was billed), variance and variance % (null without an estimate; %
    also when it is 0), over / under the estimate; in `reconcile`'s order within an experiment."""
    pick = chosen.select("experiment_id", "currency")
    estimated = estimates.join(pick, on=["experiment_id", "currency"], how="semi").select(*KEYS, "estimated")
    billed = realized.join(pick, on=["experiment_id", "currency"], how="semi").select(*KEYS, "realized")
    variance = pl.col("realized") - pl.col("estimated")
    return (
        estimated.join(billed, on=KEYS, how="full", coalesce=True, nulls_equal=True)
        .with_columns(pl.col("realized").fill_null(Decimal(0)).cast(MONEY))
        .with_columns(variance.alias("variance"))
        .with_columns(
            ratio(pl.col("variance") * 100, pl.col("estimated"), 2).alias("variance_pct"),
            (pl.col("variance") > 0).fill_null(False).alias("over"),
            (pl.col("variance") < 0).fill_null(False).alias("under"),
        )
        .sort(["experiment_id", *line_order()], maintain_order=True)
    )


def summaries(found: pl.DataFrame, experiments: pl.DataFrame) -> pl.DataFrame:
    """One row per experiment of ``experiments`` (schema EXPERIMENTS) from its ``lines``: the totals
    (estimated is null when no line has an estimate, estimated_total then 0), the headline over the
    estimated lines with the cost no line estimated apart, evaluation's share of the realized cost, waste
    (idle + failed + unused commitment) and its share, and the cost per target point gained."""
    has = pl.col("estimated").is_not_null()
    sums = found.group_by("experiment_id").agg(
        pl.col("estimated").sum().alias("estimated_total"),
        has.any().alias("has_estimate"),
        pl.col("realized").sum().alias("realized"),
        pl.col("realized").filter(has).sum().alias("realized_estimated"),
        pl.col("realized").filter(~has).sum().alias("unestimated"),
        (~has).sum().cast(pl.Int64).alias("unestimated_lines"),
        pl.col("realized").filter(pl.col("phase") == EVAL).sum().alias("eval_cost"),
    )
    zero = pl.lit(Decimal(0), MONEY)
    out = experiments.join(sums, on="experiment_id", how="left", maintain_order="left").with_columns(
        *(pl.col(c).fill_null(zero) for c in ("estimated_total", "realized", "realized_estimated")),
        *(pl.col(c).fill_null(zero) for c in ("unestimated", "eval_cost")),
        pl.col("unestimated_lines").fill_null(0),
        pl.col("has_estimate").fill_null(False),
    )
    estimated = pl.when(pl.col("has_estimate")).then(pl.col("estimated_total"))
    waste = pl.col("idle") + pl.col("failed") + pl.col("unused_commitment")
    return (
        out.with_columns(
            estimated.alias("estimated"),
            (pl.col("realized") - estimated).alias("variance"),
            (pl.col("realized") - pl.col("estimated_total")).alias("variance_total"),
            (pl.col("realized_estimated") - estimated).alias("headline_variance"),
            waste.alias("waste"),
        )
        .with_columns(
            ratio(pl.col("headline_variance") * 100, pl.col("estimated"), 2).alias("headline_pct"),
            (pl.col("headline_variance") > 0).fill_null(False).alias("over"),
            (pl.col("headline_variance") < 0).fill_null(False).alias("under"),
            ratio(pl.col("eval_cost"), _positive(pl.col("realized")), 3).alias("eval_share"),
            ratio(pl.col("waste"), _positive(pl.col("realized")), 4).alias("waste_share"),
            ratio(pl.col("realized"), _positive(pl.col("target_points")), 2).alias("cost_per_point"),
        )
        .drop("has_estimate")
    )


def totals(known: pl.DataFrame) -> pl.DataFrame:
    """`experiments`' rows (estimated, realized per experiment in its currency) with their variance."""
    return known.with_columns((pl.col("realized") - pl.col("estimated")).alias("variance"))


# --- the method cost-benefit table (`report --with-metrics`, the site's methods page) -------------------

SUMS: Schema = {
    "experiment_id": pl.String,
    "method": pl.String,
    "phase": pl.String,
    "currency": pl.String,
    "effective_cost": MONEY,
}
LOGGED: Schema = {
    "experiment_id": pl.String,
    "method": pl.String,
    "status": pl.String,
    "target_gain": POINTS,
    "general_change": POINTS,
}


def cost_benefit(sums: pl.DataFrame, logged: pl.DataFrame) -> pl.DataFrame:
    """Method rows, each followed by its experiments, ordered by method then experiment and currency.
    ``sums``: effective cost by experiment, method, phase and currency (SUMS); ``logged``: the log's
    experiments with their metric gains in points (LOGGED). An experiment's cost is everything it cost in
    a currency; a method's sums its experiments (failed and those without metrics included), its gains
    are means over those with metrics and its cost per point is the total cost over the points gained."""
    billed = sums.filter(pl.col("experiment_id").is_not_null())
    seen = billed.group_by("experiment_id", maintain_order=True).agg(pl.col("method").first().alias("seen"))
    per = billed.group_by("experiment_id", "currency").agg(
        pl.col("effective_cost").sum().alias("cost"),
        pl.col("effective_cost").filter(pl.col("phase") == EVAL).sum().alias("eval_cost"),
    )
    known = logged.with_columns(pl.lit(True).alias("logged"))
    experiments = (
        per.join(seen, on="experiment_id", how="left")
        .join(known, on="experiment_id", how="left")
        .with_columns(
            pl.when(pl.col("logged")).then(pl.col("method")).otherwise(pl.col("seen")).alias("method"),
            pl.col("eval_cost").fill_null(Decimal(0)).cast(MONEY),
            pl.lit("experiment").alias("level"),
            pl.lit(1, pl.Int64).alias("experiments"),
            pl.col("target_gain").alias("gained"),
            pl.col("general_change").alias("changed"),
        )
        .with_columns(ratio(pl.col("cost"), _positive(pl.col("target_gain")), 2).alias("cost_per_point"))
    )
    gains = pl.col("target_gain")
    methods = (
        experiments.group_by(pl.col("method").fill_null("").alias("group"), "currency")
        .agg(
            pl.len().cast(pl.Int64).alias("experiments"),
            pl.col("cost").sum(),
            pl.col("eval_cost").sum(),
            gains.sum().alias("gained"),
            gains.count().alias("with_gain"),
            pl.col("general_change").sum().alias("changed"),
            pl.col("general_change").count().alias("with_change"),
        )
        .with_columns(
            pl.when(pl.col("group") != "").then(pl.col("group")).alias("method"),
            _mean("gained", "with_gain").alias("target_gain"),
            _mean("changed", "with_change").alias("general_change"),
            ratio(
                pl.col("cost"), _positive(pl.when(pl.col("with_gain") > 0).then(pl.col("gained"))), 2
            ).alias("cost_per_point"),
            pl.lit("method").alias("level"),
            pl.lit(None, pl.String).alias("experiment_id"),
            pl.lit(None, pl.String).alias("status"),
        )
    )
    columns = [
        "level",
        "method",
        "experiment_id",
        "status",
        "experiments",
        "currency",
        "cost",
        "target_gain",
        "general_change",
        "cost_per_point",
        "eval_cost",
        "gained",
        "changed",
    ]
    both = pl.concat([methods.select(columns), experiments.select(columns)])
    return both.with_columns(
        ratio(pl.col("eval_cost"), _positive(pl.col("cost")), 4).alias("eval_share")
    ).sort(
        pl.col("method").fill_null(""),
        "currency",
        pl.col("level") == "experiment",
        pl.col("experiment_id").fill_null(""),
        maintain_order=True,
    )


def _mean(total: str, count: str) -> pl.Expr:
    """A mean rounded half-even to the cent; null over nothing."""
    divisor = pl.col(count).cast(pl.Decimal(38, 0)).cast(MONEY)
    return pl.when(pl.col(count) > 0).then(ratio(pl.col(total), divisor, 2))
