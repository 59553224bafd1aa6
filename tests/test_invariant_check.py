"""The invariant check catches allocations that do not add up, on each path a charge can take.

Most charges are checked through hash sums over both tables (one pass each, so a 10M-row month stays
cheap), split charges one by one; these tests break each path on purpose and expect the run refused.
"""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from bills import Charge, Experiment, Window, at, attribute, by_name
from trainledger.core import queries
from trainledger.core.errors import InvariantViolation

BILL = [
    Charge("whole", D("10.00"), at(0), at(1), "i-1", tags={"user_cost_label": "qwen-coder-train-sft"}),
    Charge("run", D("8.00"), at(2), at(3), "i-2"),
    Charge("cut", D("12.00"), at(4), at(5), "i-2"),
]
LOG = [Experiment("e1", "qwen-coder", windows=[Window("i-2", at(1), at(4.5))])]


def broken(monkeypatch: pytest.MonkeyPatch, name: str, old: str, new: str) -> None:
    """Make query ``name`` write wrong allocations (``old`` text replaced by ``new``)."""
    original = queries.load

    def load(query: str) -> str:
        text = original(query)
        if query == name:
            assert old in text
            return text.replace(old, new)
        return text

    monkeypatch.setattr(queries, "load", load)


def test_the_bill_attributes_cleanly_on_all_three_paths() -> None:
    con = attribute(BILL, LOG)
    rows = by_name(con, "SELECT charge_id, share_no, rule, effective_cost FROM allocations")
    rules = sorted((name, rule, cost) for name, _, rule, cost in rows)
    assert rules == [
        ("cut", "idle", D("6")),
        ("cut", "time-window", D("6")),
        ("run", "time-window", D("8")),
        ("whole", "tag", D("10")),
    ]


def test_a_charge_placed_whole_by_a_reference_to_another_charge_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A whole charge's money is its charge's (allocation by reference): what can go wrong is the reference.
    # Here "whole" (10.00) names "run" (8.00): run is allocated 8 + 8 = 16, whole nothing.
    broken(
        monkeypatch,
        "attribute/allocate_placed",
        "FROM placed_charges($periods)",
        "FROM (SELECT * REPLACE (CASE WHEN charge_id = (SELECT charge_id FROM charges WHERE row_identity = 'whole') "
        "THEN (SELECT charge_id FROM charges WHERE row_identity = 'run') ELSE charge_id END AS charge_id) "
        "FROM placed_charges($periods))",
    )
    with pytest.raises(
        InvariantViolation,
        match=r"charge\(s\), e\.g\. charge \d+ \((whole, row 1\): billed 10|run, row 1\): billed 8\.000000000000 vs 16)",
    ):
        attribute(BILL, LOG)


def test_a_charge_placed_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    broken(
        monkeypatch,
        "attribute/allocate_placed",
        "FROM placed_charges($periods)",
        "FROM (SELECT * FROM placed_charges($periods) "
        "UNION ALL SELECT * FROM placed_charges($periods) WHERE charge_id = (SELECT charge_id FROM charges WHERE row_identity = 'run'))",
    )
    with pytest.raises(
        InvariantViolation, match=r"e\.g\. charge \d+ \(run, row 1\): billed 8\.000000000000 vs 16"
    ):
        attribute(BILL, LOG)


def test_a_split_that_loses_a_unit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    broken(monkeypatch, "attribute/allocate", "CASE WHEN b_rank <= b_left THEN 1 ELSE 0 END", "0")
    bill = [Charge("thirds", D("10.00"), at(0), at(1), "i-1")]
    log = [Experiment(f"e{i}", "qwen-coder", windows=[Window("i-1", at(0), at(1))]) for i in range(3)]
    with pytest.raises(
        InvariantViolation,
        match=r"e\.g\. charge \d+ \(thirds, row 1\): billed 10\.000000000000 vs 9\.999999999999",
    ):
        attribute(bill, log)


def test_an_allocation_without_its_charge_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    broken(
        monkeypatch,
        "attribute/allocate_placed",
        "FROM placed_charges($periods)",
        "FROM (SELECT * FROM placed_charges($periods) UNION ALL SELECT * REPLACE (-1 AS charge_id) "
        "FROM placed_charges($periods) WHERE charge_id = (SELECT charge_id FROM charges WHERE row_identity = 'whole'))",
    )
    # The stray reference (charge -1) is the first of whole's tuple, so the tuple is written from no charge
    # and whole's own allocation is lost too: refused, naming whole.
    with pytest.raises(
        InvariantViolation, match=r"charge \d+ \(whole, row 1\): billed 10\.000000000000 vs None"
    ):
        attribute(BILL, LOG)
