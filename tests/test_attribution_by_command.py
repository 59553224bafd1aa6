"""Each attribution rule of SPEC §4 through the commands, on a tiny hand-written FOCUS bill."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest

from conftest import Project
from focus_files import FOCUS_CONFIG, experiment, write_focus

TRAIN = {
    "phase": "train",
    "started_at": "2026-11-03T08:00:00Z",
    "ended_at": "2026-11-03T10:00:00Z",
    "resources": [{"provider": "aws", "resource_id": "i-aaa", "gpus": 8}],
}


@pytest.fixture
def bill(project: Project):
    project.write_config(FOCUS_CONFIG)

    def make(rows, log=()):
        write_focus(project.root / "bill.csv", rows)
        (project.root / "experiments.jsonl").write_text("\n".join(log) + "\n", encoding="utf-8")

    return make


def allocations(project: Project) -> list[tuple]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    return con.execute(
        "SELECT rule, project, phase, method, experiment_id, reason, billed_cost, effective_cost "
        "FROM allocations ORDER BY billed_cost DESC, rule"
    ).fetchall()


def test_rule_1_a_tag_naming_an_experiment_wins(run, project, bill) -> None:
    bill(
        [{"BilledCost": "55.04", "ResourceId": "i-aaa", "Tags": {"experiment": "Exp-1", "phase": "train"}}],
        [experiment("exp-1", "qwen-coder", "sft", [TRAIN])],
    )
    assert run("nightly").exit_code == 0
    assert allocations(project) == [
        ("tag", "qwen-coder", "train", "sft", "exp-1", None, Decimal("55.04"), Decimal("55.04"))
    ]


def test_rule_2_tags_give_project_phase_method(run, project, bill) -> None:
    bill(
        [{"BilledCost": "21.958", "ResourceId": "i-bbb", "Tags": {"user_cost_label": "qwen-coder-eval-sft"}}]
    )
    run("nightly")
    assert allocations(project) == [
        ("tag", "qwen-coder", "eval", "sft", None, None, Decimal("21.958"), Decimal("21.958"))
    ]


def test_tagged_charge_carries_the_experiment_the_log_places_on_its_resource(run, project, bill) -> None:
    bill(
        [{"BilledCost": "55.04", "ResourceId": "i-aaa", "Tags": {"cost-label": "qwen-coder-train-sft"}}],
        [experiment("exp-1", "qwen-coder", "sft", [TRAIN])],
    )
    run("nightly")
    assert allocations(project) == [
        ("tag", "qwen-coder", "train", "sft", "exp-1", None, Decimal("55.04"), Decimal("55.04"))
    ]


def test_rule_3_inventory_tags_attribute_an_untagged_charge(run, project, bill) -> None:
    bill([{"BilledCost": "10.00", "ResourceId": "i-ccc"}])
    run("ingest")
    con = duckdb.connect(str(project.warehouse))
    con.execute(
        "INSERT INTO resources VALUES ('aws', 'i-ccc', 'inventory', 'instance', 'us-east-1', "
        '\'{"Project": "math-reasoner", "Phase": "rollout", "Method": "rl"}\', NULL, '
        "TIMESTAMP '2026-11-01', TIMESTAMP '2026-11-30')"
    )
    con.close()
    run("attribute")
    assert allocations(project) == [
        ("inventory", "math-reasoner", "rollout", "rl", None, None, Decimal("10.00"), Decimal("10.00"))
    ]


def test_rule_5_unattributed_with_a_reason_and_shared_charges_kept_apart(run, project, bill) -> None:
    bill(
        [
            {"BilledCost": "3.25", "ResourceId": "i-ddd"},
            {"BilledCost": "2.10", "ResourceId": "i-eee", "Tags": {"cost-label": "nonsense"}},
            {"BilledCost": "8.26", "ChargeCategory": "Tax", "ServiceName": "Tax"},
            {"BilledCost": "-5.00", "ChargeCategory": "Credit"},
        ]
    )
    run("nightly")
    assert allocations(project) == [
        ("shared", None, None, None, None, "tax", Decimal("8.26"), Decimal("8.26")),
        ("unattributed", None, None, None, None, "untagged", Decimal("3.25"), Decimal("3.25")),
        ("unattributed", None, None, None, None, "unknown-label", Decimal("2.10"), Decimal("2.10")),
        ("shared", None, None, None, None, "credit", Decimal("-5.00"), Decimal("-5.00")),
    ]


def test_a_bad_label_is_attributed_as_far_as_it_goes_and_reported(run, project, bill) -> None:
    bill(
        [{"BilledCost": "221.80", "ResourceId": "i-0e55", "Tags": {"cost-label": "qwen-coder-finetune-sft"}}]
    )
    run("nightly")
    assert allocations(project) == [
        (
            "tag",
            "qwen-coder",
            None,
            "sft",
            None,
            "unknown phase 'finetune' in cost label 'qwen-coder-finetune-sft'",
            Decimal("221.80"),
            Decimal("221.80"),
        )
    ]
    result = run("labels")
    assert "unknown phase 'finetune'" in result.stdout
    assert "221.80" in result.stdout


def test_tax_is_shared_even_when_its_row_carries_labels(run, project, bill) -> None:
    # GCP writes tax per project, with the project's labels; SPEC §4 keeps tax in the shared bucket.
    bill([{"BilledCost": "12.40", "ChargeCategory": "Tax", "Tags": {"cost-label": "qwen-coder-train-sft"}}])
    run("nightly")
    assert allocations(project) == [
        ("shared", None, None, None, None, "tax", Decimal("12.40"), Decimal("12.40"))
    ]
