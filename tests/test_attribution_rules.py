"""Attribution rules of SPEC §4 on small bills, with the money written out."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from bills import Charge, Experiment, Window, add_resource, at, attribute, by_name, split, warehouse
from trainledger.attribution import allocations

EXP_TAG = {"user_project": "qwen-coder", "user_phase": "train", "user_method": "sft"}


def hourly(name: str, cost: str, hour: float = 0, resource: str = "i-1", **kw) -> Charge:
    return Charge(name, D(cost), at(hour), at(hour + 1), resource, **kw)


CASES = [
    pytest.param(
        [hourly("c", "10.00")],
        [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(0.5))])],
        [("time-window", "qwen-coder", "train", "e1", D("5")), ("idle", "qwen-coder", "idle", None, D("5"))],
        id="half an hour of an untagged hourly charge: half to the run, half idle",
    ),
    pytest.param(
        [hourly("c", "12.00")],
        [
            Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=8)]),
            Experiment("e2", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=0)]),
        ],
        [("time-window", "qwen-coder", "train", "e1", D("12"))],
        id="two runs on a node, 8 and 0 GPUs: all to the one with GPUs",
    ),
    pytest.param(
        [hourly("c", "12.00")],
        [
            Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=4)]),
            Experiment("e2", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=4)]),
        ],
        [
            ("time-window", "qwen-coder", "train", "e1", D("6")),
            ("time-window", "qwen-coder", "train", "e2", D("6")),
        ],
        id="two runs on a node, 4 and 4 GPUs: half each",
    ),
    pytest.param(
        [hourly("c", "12.00")],
        [
            Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=6)]),
            Experiment("e2", "qwen-coder", windows=[Window("i-1", at(0.5), at(1), gpus=2)]),
        ],
        # first half e1 alone: 6.00; second half 6:2 GPUs: 4.50 and 1.50
        [
            ("time-window", "qwen-coder", "train", "e1", D("6")),
            ("time-window", "qwen-coder", "train", "e1", D("4.5")),
            ("time-window", "qwen-coder", "train", "e2", D("1.5")),
        ],
        id="overlapping runs share the overlap by GPUs",
    ),
    pytest.param(
        [hourly("c", "10.00")],
        [
            Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=0)]),
            Experiment("e2", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=0)]),
            Experiment("e3", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=0)]),
        ],
        [
            ("time-window", "qwen-coder", "train", "e1", D("3.333333333334")),
            ("time-window", "qwen-coder", "train", "e2", D("3.333333333333")),
            ("time-window", "qwen-coder", "train", "e3", D("3.333333333333")),
        ],
        id="no GPUs reported: equal thirds, the odd unit of 1e-12 to the first share",
    ),
    pytest.param(
        [Charge("c", D("24.00"), at(0), at(24), "bucket-1", usage_type="TimedStorage-ByteHrs")],
        [Experiment("e1", "qwen-coder", windows=[Window("bucket-1", at(6), at(12), gpus=0, phase="data")])],
        [
            ("idle", "qwen-coder", "idle", None, D("6")),
            ("time-window", "qwen-coder", "data", "e1", D("6")),
            ("idle", "qwen-coder", "idle", None, D("12")),
        ],
        id="a daily charge works the same, the charge period being the day",
    ),
    pytest.param(
        [hourly("c", "10.00", tags={"user_experiment": "exp-9", "user_project": "qwen-coder"})],
        [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1))])],
        [("tag", "qwen-coder", None, "exp-9", D("10"))],
        id="a tag naming an experiment beats the time window",
    ),
    pytest.param(
        [hourly("c", "10.00", tags={"user_cost_label": "distill-small-rollout-opd"})],
        [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1))])],
        [("tag", "distill-small", "rollout", None, D("10"))],
        id="a tagged charge keeps its tag against a run of another project",
    ),
    pytest.param(
        [hourly("c", "10.00", tags={"user_cost_label": "qwen-coder-eval-sft"})],
        [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0.25), at(1))])],
        [("idle", "qwen-coder", "idle", None, D("2.5")), ("tag", "qwen-coder", "eval", "e1", D("7.5"))],
        id="a tagged compute charge carries the run; the uncovered quarter is idle",
    ),
    pytest.param(
        [
            Charge(
                "c",
                D("24.00"),
                at(0),
                at(24),
                "bucket-1",
                tags=EXP_TAG,
                usage_type="TimedStorage-ByteHrs",
                service_name="Amazon Simple Storage Service",
            )
        ],
        [Experiment("e1", "qwen-coder", windows=[Window("bucket-1", at(0), at(6), gpus=0, phase="data")])],
        [("tag", "qwen-coder", "train", "e1", D("6")), ("tag", "qwen-coder", "train", None, D("18"))],
        id="tagged storage is never idle: uncovered time keeps the tag",
    ),
    pytest.param(
        [hourly("c", "10.00")],
        [
            Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(0.5))]),
            Experiment("e2", "math-reasoner", windows=[Window("i-1", at(3), at(4))]),
        ],
        [("time-window", "qwen-coder", "train", "e1", D("5")), ("unattributed", None, None, None, D("5"))],
        id="a resource two projects used that period: uncovered time is unattributed",
    ),
    pytest.param(
        [hourly("c", "10.00", resource="i-2")],
        [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1))])],
        [("unattributed", None, None, None, D("10"))],
        id="a resource the log never names stays unattributed",
    ),
]


@pytest.mark.parametrize(("charges", "experiments", "expected"), CASES)
def test_rules(charges, experiments, expected) -> None:
    con = attribute(charges, experiments)
    assert split(con, "c") == expected


def test_a_bill_with_more_charges_to_split_than_a_slice_splits_them_slice_by_slice(monkeypatch) -> None:
    steps = []
    real_run = allocations.run

    def run(con, name, *params):
        steps.append(name)
        return real_run(con, name, *params)

    monkeypatch.setattr(allocations, "SPLIT_SLICE", 2)
    monkeypatch.setattr(allocations, "run", run)
    # Five hourly charges on one node, each with its own run for a quarter of the hour; in hour 3 a
    # second run holds the node for another quarter. No run touches the charge at hour 20.
    con = attribute(
        [*(hourly(f"c{h}", "10.00", hour=h) for h in range(5)), hourly("far", "3.00", hour=20)],
        [
            Experiment(f"e{h}", "qwen-coder", windows=[Window("i-1", at(h), at(h + 0.25), gpus=4)])
            for h in range(5)
        ]
        + [Experiment("big", "qwen-coder", windows=[Window("i-1", at(3.5), at(3.75), gpus=8)])],
    )
    assert steps.count("attribute/windows") == 3
    for h in (0, 1, 2, 4):
        assert split(con, f"c{h}") == [
            ("time-window", "qwen-coder", "train", f"e{h}", D("2.5")),
            ("idle", "qwen-coder", "idle", None, D("7.5")),
        ]
    assert split(con, "c3") == [
        ("time-window", "qwen-coder", "train", "e3", D("2.5")),
        ("idle", "qwen-coder", "idle", None, D("2.5")),
        ("time-window", "qwen-coder", "train", "big", D("2.5")),
        ("idle", "qwen-coder", "idle", None, D("2.5")),
    ]
    assert split(con, "far") == [("idle", "qwen-coder", "idle", None, D("3"))]


def test_tagged_compute_the_log_watches_is_idle_in_hours_no_run_used() -> None:
    con = attribute(
        [hourly("c", "10.00", tags=EXP_TAG), hourly("d", "10.00", hour=5, tags=EXP_TAG)],
        [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1))])],
    )
    assert split(con, "c") == [("tag", "qwen-coder", "train", "e1", D("10"))]
    assert split(con, "d") == [("idle", "qwen-coder", "idle", None, D("10"))]


def test_segments_carry_their_own_time() -> None:
    con = attribute(
        [hourly("c", "10.00")], [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0.25), at(0.75))])]
    )
    rows = con.execute(
        "SELECT rule, charge_period_start, charge_period_end, effective_cost FROM allocations ORDER BY share_no"
    ).fetchall()
    assert rows == [
        ("idle", at(0), at(0.25), D("2.5")),
        ("time-window", at(0.25), at(0.75), D("5")),
        ("idle", at(0.75), at(1), D("2.5")),
    ]


def test_no_experiment_reason_is_recorded() -> None:
    con = attribute(
        [hourly("c", "10.00")],
        [
            Experiment("e1", "qwen-coder", windows=[Window("i-1", at(5), at(6))]),
            Experiment("e2", "math-reasoner", windows=[Window("i-1", at(7), at(8))]),
        ],
    )
    assert con.execute("SELECT rule, reason FROM allocations").fetchall() == [
        ("unattributed", "no-experiment")
    ]


def test_idle_belongs_to_the_project_named_by_the_resources_other_charges() -> None:
    con = attribute(
        [hourly("c", "10.00"), hourly("tagged", "1.00", hour=9, tags={"user_project": "distill-small"})],
        [Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(0.5))])],
    )
    assert split(con, "c")[1] == ("idle", "distill-small", "idle", None, D("5"))


@pytest.mark.parametrize(
    ("charge_tags", "expected"),
    [
        ({"user_project": "qwen-coder"}, ("inventory", "qwen-coder", "train", None, D("10"))),
        # the charge's own part wins over the inventory's
        (
            {"user_project": "qwen-coder", "user_phase": "eval"},
            ("inventory", "qwen-coder", "eval", None, D("10")),
        ),
        # another project on the charge: its own tag stands, the inventory is not mixed in
        ({"user_project": "math-reasoner"}, ("tag", "math-reasoner", None, None, D("10"))),
    ],
)
def test_inventory_completes_a_key_the_charge_gives_only_part_of(charge_tags, expected) -> None:
    """SPEC §4: "2. The charge's own tags give (project, phase, method). 3. The resource's tags from the
    inventory (EC2/GCE live tags) give them — this covers tags added after launch or not activated as cost
    allocation tags." A charge tagged with the project alone (phase and method not activated) does not give
    the key: the live tags of its instance do."""
    con = warehouse()
    add_resource(con, "i-1", tags={"project": "qwen-coder", "phase": "train", "method": "sft"})
    attribute([hourly("c", "10.00", tags=charge_tags)], con=con)
    assert split(con, "c") == [expected]
    method = con.execute("SELECT method FROM allocations").fetchone()
    assert method == (("sft",) if expected[0] == "inventory" else (None,))


def test_log_names_a_gcp_instance_by_an_alias() -> None:
    con = warehouse()
    global_name = "//compute.googleapis.com/projects/ml/zones/us-central1-a/instances/5312004879331234"
    add_resource(con, "train-node-1", aliases=["5312004879331234", global_name], provider="gcp")
    attribute(
        [hourly("c", "10.00", resource=global_name, provider="gcp", service_name="Compute Engine")],
        [Experiment("e1", "qwen-coder", windows=[Window("train-node-1", at(0), at(1), provider="gcp")])],
        con=con,
    )
    assert split(con, "c") == [("time-window", "qwen-coder", "train", "e1", D("10"))]


def test_every_money_column_splits_exactly() -> None:
    con = attribute(
        [hourly("c", "-0.0000000007", effective=D("10.0000000001"), list_cost=D("0.0000000002"))],
        [
            Experiment("e1", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=1)]),
            Experiment("e2", "qwen-coder", windows=[Window("i-1", at(0), at(1), gpus=2)]),
        ],
    )
    rows = con.execute(
        "SELECT experiment_id, billed_cost, effective_cost, list_cost FROM allocations ORDER BY share_no"
    ).fetchall()
    assert rows == [
        # 1:2 in units of 1e-12, each leftover unit to the largest remainder
        ("e1", D("-0.000000000233"), D("3.333333333367"), D("0.000000000067")),
        ("e2", D("-0.000000000467"), D("6.666666666733"), D("0.000000000133")),
    ]


SHARED = [
    hourly("a", "30.00", tags={"user_cost_label": "qwen-coder-train-sft"}),
    hourly("b", "10.00", tags={"user_cost_label": "math-reasoner-train-rl"}),
    hourly("u", "5.00", resource="i-9"),
    Charge("tax", D("10.00"), charge_category="Tax", usage_type=None),
]


def test_shared_cost_is_kept_apart_by_default() -> None:
    con = attribute(SHARED)
    assert split(con, "tax") == [("shared", None, None, None, D("10"))]


def test_proportional_spreads_shared_cost_over_attributed_cost() -> None:
    con = attribute(SHARED, shared="proportional")
    assert split(con, "tax") == [
        ("shared", "math-reasoner", "train", None, D("2.5")),
        ("shared", "qwen-coder", "train", None, D("7.5")),
    ]
    reasons = by_name(con, "SELECT charge_id, share_no, reason FROM allocations")
    assert [reason for name, _, reason in reasons if name == "tax"] == ["tax"] * 2


def test_proportional_spread_is_over_attributed_cost_only_and_skips_non_positive_receivers() -> None:
    """SPEC §4: "spreads them over attributed cost in proportion" (attributed, not idle)."""
    con = attribute(
        [
            *SHARED,
            hourly(
                "credit",
                "-40.00",
                hour=3,
                tags={"user_cost_label": "math-reasoner-train-rl"},
                charge_category="Credit",
            ),
            hourly("idle", "20.00", hour=2, resource="i-5"),
        ],
        [Experiment("e1", "distill-small", "opd", windows=[Window("i-5", at(5), at(6))])],
        shared="proportional",
    )
    # math-reasoner nets 10.00 - 40.00 < 0: no share; distill-small's 20.00 is idle, not attributed:
    # qwen-coder's 30.00 is the only receiver.
    assert split(con, "idle") == [("idle", "distill-small", "idle", None, D("20"))]
    assert split(con, "tax") == [("shared", "qwen-coder", "train", None, D("10"))]


def test_proportional_without_attributed_cost_keeps_a_shared_row() -> None:
    con = attribute(
        [
            hourly("u", "5.00"),
            Charge("tax", D("10.00"), charge_category="Tax", usage_type=None, currency="EUR"),
        ],
        shared="proportional",
    )
    assert split(con, "tax") == [("shared", None, None, None, D("10"))]


def test_proportional_keeps_billing_accounts_and_currencies_apart() -> None:
    con = attribute(
        [
            hourly("a", "30.00", tags={"user_cost_label": "qwen-coder-train-sft"}),
            hourly("b", "10.00", tags={"user_cost_label": "math-reasoner-train-rl"}, account="999999999999"),
            hourly("e", "10.00", tags={"user_cost_label": "distill-small-train-opd"}, currency="EUR"),
            Charge("tax", D("10.00"), charge_category="Tax", usage_type=None),
        ],
        shared="proportional",
    )
    assert split(con, "tax") == [("shared", "qwen-coder", "train", None, D("10"))]
