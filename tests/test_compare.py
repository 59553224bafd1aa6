"""The one comparison of estimates with realized cost (reports/compare.py), on frames written by hand:
two experiments at once, every figure worked out in the comments."""

from __future__ import annotations

from decimal import Decimal as D

import polars as pl

from trainledger.core.frames import MONEY, ratio, rows_frame, with_sign
from trainledger.reports import compare


def test_ratios_are_exact_and_round_half_even() -> None:
    found = rows_frame(
        [
            (D("12.345"), D("100")),  # 0.12345 -> 0.12 (below the half)
            (D("0.125"), D("1")),  # a tie: 0.12 (2 is even)
            (D("0.135"), D("1")),  # a tie: 0.14 (4 is even)
            (D("-0.125"), D("1")),  # -0.12
            (D("2"), D("3")),  # 0.666... -> 0.67
            (D("1"), D("0")),  # no quotient
            (D("100000000000000000000"), D("3")),  # 10^20 / 3, exact to the cent
        ],
        {"n": MONEY, "d": MONEY},
    ).select(ratio(pl.col("n"), pl.col("d"), 2).alias("q"))
    assert found["q"].to_list() == [
        D("0.12"),
        D("0.12"),
        D("0.14"),
        D("-0.12"),
        D("0.67"),
        None,
        D("33333333333333333333.33"),
    ]
    assert found.schema["q"] == pl.Decimal(38, 2)
    assert str(with_sign(D("0.00"), True)) == "-0.00" and with_sign(D("0.01"), True) == D("0.01")


ESTIMATES = [
    # experiment, phase, category, spend, currency, estimated, basis
    ("a", "train", "compute", "cloud", "USD", D("950"), "log"),
    ("a", "eval", "compute", "cloud", "USD", D("110"), "log"),
    ("a", "eval", "compute", "llm_api", "USD", D("40"), "estimator"),
    ("b", "train", "compute", "cloud", "EUR", D("100"), "log"),
]
REALIZED = [
    # experiment, phase, category, spend, currency, realized, cloud compute
    ("a", "train", "compute", "cloud", "USD", D("1210.88"), D("1210.88")),
    ("a", "eval", "compute", "llm_api", "USD", D("30"), None),
    ("a", "data", "data", "cloud", "USD", D("4850"), None),
    ("a", "train", "compute", "cloud", "EUR", D("7"), D("7")),  # another currency: not in a's figures
    ("b", "train", "compute", "cloud", "EUR", D("99.99999"), D("99.99999")),
]
EXPERIMENTS = [
    # experiment, currency, idle, failed, unused commitment, target points, general points
    ("a", "USD", D("21.958"), D(0), D(0), D("14.00"), D("-2.00")),
    ("b", "EUR", D(0), D("99.99999"), D(0), None, None),
]


def compared() -> tuple[pl.DataFrame, pl.DataFrame]:
    experiments = rows_frame(EXPERIMENTS, compare.EXPERIMENTS)
    lines = compare.lines(
        rows_frame(ESTIMATES, compare.ESTIMATES), rows_frame(REALIZED, compare.REALIZED), experiments
    )
    return lines, compare.summaries(lines, experiments)


def test_lines_of_two_experiments_at_once() -> None:
    lines, _ = compared()
    shown = lines.select("experiment_id", "phase", "category", "spend", "estimated", "realized", "variance")
    assert shown.rows() == [
        ("a", "data", "data", "cloud", None, D("4850"), None),  # nobody estimated it
        ("a", "train", "compute", "cloud", D("950"), D("1210.88"), D("260.88")),
        ("a", "eval", "compute", "cloud", D("110"), D(0), D("-110")),  # estimated, nothing billed
        ("a", "eval", "compute", "llm_api", D("40"), D("30"), D("-10")),  # after the phase's cloud line
        ("b", "train", "compute", "cloud", D("100"), D("99.99999"), D("-0.00001")),
    ]
    # 260.88 / 950 = 27.4610...%; -110 / 110 = -100%; -10 / 40 = -25%; -0.00001 / 100 = -0.00001%.
    assert lines["variance_pct"].to_list() == [None, D("27.46"), D("-100.00"), D("-25.00"), D("0.00")]
    assert lines["over"].to_list() == [False, True, False, False, False]
    assert lines["under"].to_list() == [False, False, True, True, True]
    assert lines.schema["realized"] == MONEY


def test_each_experiments_totals_headline_and_shares() -> None:
    _, summaries = compared()
    a, b = summaries.iter_rows(named=True)
    # a: estimated 950 + 110 + 40 = 1100; realized 4850 + 1210.88 + 0 + 30 = 6090.88.
    assert (a["estimated"], a["estimated_total"], a["realized"]) == (D("1100"), D("1100"), D("6090.88"))
    assert (a["variance"], a["variance_total"]) == (D("4990.88"), D("4990.88"))
    # The headline leaves the unestimated data line out: 1240.88 against 1100, +140.88 = +12.807...%.
    assert (a["realized_estimated"], a["headline_variance"], a["headline_pct"]) == (
        D("1240.88"),
        D("140.88"),
        D("12.81"),
    )
    assert (a["unestimated"], a["unestimated_lines"], a["over"]) == (D("4850"), 1, True)
    # Evaluation 30 of 6090.88 = 0.4925...%; waste 21.958 = 0.3605...%; 6090.88 / 14 points = 435.0628...
    assert (a["eval_share"], a["waste"], a["waste_share"]) == (D("0.005"), D("21.958"), D("0.0036"))
    assert a["cost_per_point"] == D("435.06")
    # b failed: all it cost is waste, 99.99999 of 99.99999; no metrics, no cost per point.
    assert (b["headline_pct"], b["under"], b["waste_share"], b["cost_per_point"]) == (
        D("0.00"),
        True,
        D("1.0000"),
        None,
    )


def test_the_method_cost_benefit_table() -> None:
    sums = rows_frame(
        [
            ("e1", "sft", "train", "USD", D("300")),
            ("e1", "sft", "eval", "USD", D("100")),
            ("e2", "sft", "train", "USD", D("200")),
            ("e3", "rl", "train", "USD", D("50")),
            (None, None, "train", "USD", D("999")),  # no experiment: in no row
        ],
        compare.SUMS,
    )
    logged = rows_frame(
        [("e1", "sft", "succeeded", D("4.00"), D("1.00")), ("e2", "sft", "failed", None, None)],
        compare.LOGGED,
    )
    table = compare.cost_benefit(sums, logged).select(
        "level",
        "method",
        "experiment_id",
        "experiments",
        "cost",
        "target_gain",
        "cost_per_point",
        "eval_share",
    )
    assert table.rows() == [
        # rl's e3 is not in the log: its method is the allocations' one, no gains.
        ("method", "rl", None, 1, D("50"), None, None, D("0.0000")),
        ("experiment", "rl", "e3", 1, D("50"), None, None, D("0.0000")),
        # sft: 400 + 200 = 600 for 4 points = 150 per point; the mean gain over e1 alone; eval 100 / 600.
        ("method", "sft", None, 2, D("600"), D("4.00"), D("150.00"), D("0.1667")),
        ("experiment", "sft", "e1", 1, D("400"), D("4.00"), D("100.00"), D("0.2500")),
        ("experiment", "sft", "e2", 1, D("200"), None, None, D("0.0000")),
    ]
