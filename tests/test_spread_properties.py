"""`[allocation] shared = "proportional"` on random bills, against a reference worked out here in plain
Decimal arithmetic (SPEC §4): each shared charge is spread over the attributed cost of its billing account,
period and currency, in proportion to each receiver's effective cost (receivers with none or less get
nothing), in integer units of 1e-12 with the leftover units going to the largest remainders, ties by
receiver order. The receivers' costs are read from the same bill attributed with `shared = "separate"`,
whose other allocations the spread must leave alone.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bills import Charge, add_resource, attribute, by_name, warehouse
from test_attribution_properties import charges, experiments

pytestmark = pytest.mark.slow

RECEIVING = {"tag", "inventory", "time-window"}  # attributed cost (SPEC §4), not idle
UNIT = Decimal("1e-12")
# Columns of the `allocations` view.
SHARE, PERIOD, ACCOUNT, PROJECT, PHASE, METHOD, EXPERIMENT, RULE, CURRENCY = 1, 4, 5, 9, 10, 11, 12, 17, 19
MONEY = (20, 21, 22)


def _split(amount: Decimal, weights: list[int]) -> list[Decimal]:
    """``amount`` in parts proportional to ``weights`` that sum to it exactly, at 1e-12."""
    units = int(amount / UNIT)
    assert Decimal(units) * UNIT == amount
    total, whole = sum(weights), abs(units)
    base = [whole * w // total for w in weights]
    remainders = [whole * w % total for w in weights]
    left = whole - sum(base)
    largest = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))[:left]
    sign = -1 if units < 0 else 1
    return [Decimal(sign * (b + (i in largest))) * UNIT for i, b in enumerate(base)]


def _order(receiver: tuple[Any, ...]) -> tuple[Any, ...]:
    project, phase, method, experiment = receiver
    return tuple((value is None, value or "") for value in (experiment, phase, project, method))


def expected_spread(separate: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    cost: dict[tuple[Any, ...], dict[tuple[Any, ...], Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for row in separate:
        if row[RULE] in RECEIVING:
            group = (row[ACCOUNT], row[PERIOD], row[CURRENCY])
            cost[group][(row[PROJECT], row[PHASE], row[METHOD], row[EXPERIMENT])] += row[MONEY[1]]
    result = []
    for row in separate:
        group = (row[ACCOUNT], row[PERIOD], row[CURRENCY])
        receivers = sorted((r for r, c in cost[group].items() if c > 0), key=_order)
        if row[RULE] != "shared" or not receivers:
            result.append(row)
            continue
        assert row[SHARE] == 1  # a shared charge is placed whole
        weights = [int(cost[group][r] / UNIT) for r in receivers]
        parts = [_split(row[i], weights) for i in MONEY]
        for n, receiver in enumerate(receivers):
            spread = list(row)
            spread[SHARE] = n + 1
            spread[PROJECT], spread[PHASE], spread[METHOD], spread[EXPERIMENT] = receiver
            for i, money in zip(MONEY, parts, strict=True):
                spread[i] = money[n]
            result.append(tuple(spread))
    return sorted(result, key=lambda r: (r[0], r[SHARE]))


def _attribute(bill: list[Charge], log: list[Any], shared: str) -> list[tuple[Any, ...]]:
    con = warehouse()
    add_resource(con, "i-3", tags={"cost-label": "distill-small-train-opd"}, aliases=["node-3-alias"])
    add_resource(con, "i-2", tags={})
    attribute(bill, log, shared=shared, con=con)
    return by_name(con)


@st.composite
def bills(draw: st.DrawFn) -> list[Charge]:
    """A random bill, some of its month-level charges repeated under other names (an hourly fee's amount
    recurs all month: the spread is worked out once per amount)."""
    bill = draw(charges())
    month = [c for c in bill if c.start is None]
    for i, charge in enumerate(draw(st.lists(st.sampled_from(month), max_size=3)) if month else []):
        bill.append(Charge(**{**charge.__dict__, "name": f"r{i}"}))
    return bill


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bill=bills(), log=experiments())
def test_proportional_spread_matches_plain_decimal_arithmetic(bill, log) -> None:
    separate = _attribute(bill, log, "separate")
    proportional = _attribute(bill, log, "proportional")
    assert proportional == expected_spread(separate)
