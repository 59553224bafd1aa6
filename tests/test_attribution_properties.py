"""Nothing lost (SPEC §8), on random bills and logs through the real attribution code.

Bills mix hourly, daily and month-level line items, credits and negative corrections, two currencies,
two billing accounts and two billing periods; logs have overlapping windows with and without GPUs, on
resources named directly or by an inventory alias. Whatever the draw, every charge's allocations sum
exactly to it (billed, effective and list), each period and currency adds up to the bill, and shuffling
the input rows changes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bills import Charge, Experiment, Window, add_resource, at, attribute, by_name, warehouse

pytestmark = pytest.mark.slow

RESOURCES = ["i-1", "i-2", "i-3", "bucket-1"]
RULES = {"tag", "inventory", "time-window", "idle", "shared", "unattributed"}
TAGS = [
    {"user_project": "qwen-coder", "user_phase": "train", "user_method": "sft"},
    {"user_cost_label": "math-reasoner-rollout-rl"},
    {"user_project": "math-reasoner"},
    {"user_experiment": "e1", "user_project": "qwen-coder"},
    {"user_cost_label": "qwen-coder-finetune-sft"},
]

money = st.decimals(min_value=-1000, max_value=1000, places=10, allow_nan=False, allow_infinity=False)
simple_money = st.decimals(min_value=-100, max_value=1000, places=2, allow_nan=False, allow_infinity=False)


@st.composite
def charges(draw: st.DrawFn) -> list[Charge]:
    rows = []
    for i in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["hourly", "hourly", "daily", "month"]))
        period = draw(st.sampled_from(["2026-11", "2026-11", "2026-12"]))
        shift = timedelta(days=30 if period == "2026-12" else 0)
        billed = draw(st.one_of(simple_money, money))
        effective = draw(st.one_of(st.just(billed), money))
        common = {
            "currency": draw(st.sampled_from(["USD", "USD", "EUR"])),
            "account": draw(st.sampled_from(["111122223333", "999988887777"])),
            "period": period,
            "effective": effective,
            "list_cost": draw(st.one_of(st.just(billed), st.just(Decimal(0)), money)),
        }
        if kind == "month":
            category = draw(st.sampled_from(["Tax", "Credit", "Purchase", "Usage"]))
            rows.append(Charge(f"c{i}", billed, charge_category=category, usage_type=None, **common))
            continue
        if kind == "hourly":
            start = at(draw(st.integers(0, 11))) + shift
            end = start + timedelta(hours=1)
        else:
            start = at(24 * draw(st.integers(0, 1))) + shift
            end = start + timedelta(days=1)
        resource = draw(st.sampled_from([*RESOURCES, None]))
        storage = resource == "bucket-1"
        rows.append(
            Charge(
                f"c{i}",
                billed,
                start,
                end,
                resource,
                tags=draw(st.one_of(st.just({}), st.sampled_from(TAGS))),
                charge_category=draw(st.sampled_from(["Usage", "Usage", "Usage", "Credit"])),
                service_name="Amazon Simple Storage Service" if storage else "Amazon Elastic Compute Cloud",
                usage_type="TimedStorage-ByteHrs" if storage else "BoxUsage:p5.48xlarge",
                **common,
            )
        )
    return rows


@st.composite
def experiments(draw: st.DrawFn) -> list[Experiment]:
    result = []
    for i in range(draw(st.integers(0, 5))):
        windows = []
        for _ in range(draw(st.integers(1, 3))):
            start = at(draw(st.integers(0, 11))) + timedelta(minutes=draw(st.integers(-40, 40)))
            if draw(st.integers(0, 3)) == 0:
                start += timedelta(days=30)
            end = start + timedelta(
                minutes=draw(st.sampled_from([0, 20, 30, 60, 90, 240]) | st.integers(0, 480))
            )
            resource = draw(st.sampled_from([*RESOURCES, "node-3-alias"]))
            windows.append(
                Window(
                    resource,
                    start,
                    end,
                    draw(st.integers(0, 8)),
                    draw(st.sampled_from(["train", "eval", None])),
                )
            )
        result.append(
            Experiment(
                f"e{i}",
                draw(st.sampled_from(["qwen-coder", "math-reasoner", None])),
                draw(st.sampled_from(["sft", "rl"])),
                windows,
            )
        )
    return result


def _attribute(bill: list[Charge], log: list[Experiment], shared: str) -> list[tuple[object, ...]]:
    con = warehouse()
    add_resource(con, "i-3", tags={"cost-label": "distill-small-train-opd"}, aliases=["node-3-alias"])
    add_resource(con, "i-2", tags={})
    attribute(bill, log, shared=shared, con=con)
    return by_name(con)


def _check_nothing_lost(bill: list[Charge], allocations: list[tuple[object, ...]]) -> None:
    by_charge: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)
    by_bucket: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)
    for row in allocations:
        charge_id, period, rule, currency = row[0], row[4], row[17], row[19]
        assert rule in RULES
        for i, value in enumerate(row[20:23]):
            by_charge[charge_id][i] += value
            by_bucket[(period, currency)][i] += value
    expected_bucket: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)
    for charge in bill:
        row = charge.row()
        money = [row["billed_cost"], row["effective_cost"], row["list_cost"]]
        assert by_charge[charge.name] == money, charge.name
        for i, value in enumerate(money):
            expected_bucket[(charge.period, charge.currency)][i] += value
    assert set(by_charge) == {c.name for c in bill}
    assert by_bucket == expected_bucket


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bill=charges(),
    log=experiments(),
    shared=st.sampled_from(["separate", "proportional"]),
    data=st.data(),
)
def test_random_bills_lose_nothing_and_ignore_row_order(bill, log, shared, data) -> None:
    allocations = _attribute(bill, log, shared)
    _check_nothing_lost(bill, allocations)
    shuffled_bill = data.draw(st.permutations(bill), label="bill order")
    shuffled_log = data.draw(st.permutations(log), label="log order")
    assert _attribute(shuffled_bill, shuffled_log, shared) == allocations


@settings(max_examples=40, deadline=None)
@given(bill=charges(), log=experiments())
def test_segments_stay_inside_their_charge(bill, log) -> None:
    con = warehouse()
    attribute(bill, log, con=con)
    outside = con.execute(
        "SELECT a.charge_id FROM allocations a JOIN charges c USING (charge_id) "
        "WHERE a.charge_period_start < c.charge_period_start OR a.charge_period_end > c.charge_period_end "
        "   OR (a.rule = 'time-window' AND a.experiment_id IS NULL) OR (a.rule = 'idle' AND a.project IS NULL)"
    ).fetchall()
    assert outside == []
