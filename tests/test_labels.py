"""The label scheme of SPEC §3, as a table of tag sets and what they resolve to."""

from __future__ import annotations

import json
from collections import Counter

import duckdb
import pytest
from click.testing import CliRunner

import bills
from conftest import Project
from trainledger.cli import cli
from trainledger.core.config_labels import LabelsConfig
from trainledger.core.labels import LabelScheme, canonical_key

SCHEME = LabelScheme(LabelsConfig())


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("cost-label", "cost_label"),
        ("user_cost_label", "cost_label"),
        ("resourceTags/user:Cost-Label", "cost_label"),
        ("resource_tags_user_cost_label", "cost_label"),
        ("user:Project", "project"),
        ("Experiment.Id", "experiment_id"),
        ("k8s-label/team name", "team_name"),  # GKE cost allocation: the pod label is the key
    ],
)
def test_tag_keys_fold_to_one_canonical_key(key: str, canonical: str) -> None:
    assert canonical_key(key) == canonical


@pytest.mark.parametrize(
    ("tags", "project", "phase", "method", "status"),
    [
        # separate keys, as CUR 2.0 writes them
        (
            {"user_project": "qwen-coder", "user_phase": "train", "user_method": "sft"},
            "qwen-coder",
            "train",
            "sft",
            "ok",
        ),
        # composite with a hyphenated project, parsed from the right
        ({"user_cost_label": "qwen-coder-eval-sft"}, "qwen-coder", "eval", "sft", "ok"),
        (
            {"resourceTags/user:cost-label": "big-multi-part-project-rollout-opd"},
            "big-multi-part-project",
            "rollout",
            "opd",
            "ok",
        ),
        # aliases and case: trimmed and lowercased everywhere
        (
            {"Project": " Math-Reasoner ", "Phase": "Training", "Method": "GRPO"},
            "math-reasoner",
            "train",
            "rl",
            "ok",
        ),
        ({"cost-label": "Distill-Small-Train-OPD"}, "distill-small", "train", "opd", "ok"),
        # "Values are trimmed and lowercased": each part of a composite, not only its ends
        ({"cost-label": " Qwen-Coder - Train - SFT "}, "qwen-coder", "train", "sft", "ok"),
        # unknown phase: project and method still attributed
        ({"cost-label": "qwen-coder-finetune-sft"}, "qwen-coder", None, "sft", "unknown-label"),
        (
            {"project": "qwen-coder", "phase": "warmup", "method": "sft"},
            "qwen-coder",
            None,
            "sft",
            "unknown-label",
        ),
        # separate keys disagreeing with the composite: the disagreeing part is unknown
        (
            {"project": "qwen-coder", "phase": "eval", "method": "sft", "cost-label": "qwen-coder-train-sft"},
            "qwen-coder",
            None,
            "sft",
            "conflict",
        ),
        # a composite that does not parse
        ({"cost-label": "qwen"}, None, None, None, "unknown-label"),
        # only part of the key
        ({"project": "qwen-coder"}, "qwen-coder", None, None, "partial"),
        # nothing
        ({"owner": "alice"}, None, None, None, "untagged"),
        ({}, None, None, None, "untagged"),
    ],
)
def test_tag_sets_resolve_to_the_attribution_key(tags, project, phase, method, status) -> None:
    resolved = SCHEME.resolve(tags)
    assert (resolved.project, resolved.phase, resolved.method, resolved.status) == (
        project,
        phase,
        method,
        status,
    )


@pytest.mark.parametrize(
    ("tags", "project", "phase", "method", "status"),
    [
        # the resource's cost label wins whole: the project's `project` label is no conflict with it
        (
            {"cost-label": "qwen-coder-train-sft", "project-label:project": "platform"},
            "qwen-coder",
            "train",
            "sft",
            "ok",
        ),
        # the project's labels fill what the resource's leave unsaid, the resource's winning
        (
            {
                "phase": "train",
                "method": "sft",
                "project-label:project": "qwen-coder",
                "project-label:phase": "data",
            },
            "qwen-coder",
            "train",
            "sft",
            "ok",
        ),
        # a resource without labels of the scheme: the project's say it all
        (
            {"env": "prod", "project-label:cost-label": "distill-small-eval-opd"},
            "distill-small",
            "eval",
            "opd",
            "ok",
        ),
        ({"project-label:team": "ml"}, None, None, None, "untagged"),
    ],
)
def test_gcp_project_labels_say_only_what_the_resources_own_leave_unsaid(
    tags, project, phase, method, status
) -> None:
    got = SCHEME.resolve(tags)
    assert (got.project, got.phase, got.method, got.status) == (project, phase, method, status)


def test_a_gcp_project_label_never_conflicts_with_its_resources_cost_label() -> None:
    """The tags ingest writes for a GCP row (the BigQuery export's `labels` and `project.labels`), read by
    the scheme: the resource's own cost label decides, whatever its project's labels say."""
    con = bills.warehouse()
    (tags,) = con.execute(
        "SELECT gcp_tags_json([{'key': 'cost-label', 'value': 'qwen-coder-train-sft'}], "
        "[{'key': 'project', 'value': 'platform'}, {'key': 'team', 'value': 'ml'}], [])"
    ).fetchone()
    got = SCHEME.resolve_json(tags)
    assert (got.project, got.phase, got.method, got.status) == ("qwen-coder", "train", "sft", "ok")


def test_experiment_tag_is_read_and_lowercased() -> None:
    resolved = SCHEME.resolve({"user_experiment": "EXP-0412", "user_project": "qwen-coder"})
    assert resolved.experiment_id == "exp-0412"


def test_problems_say_what_is_wrong() -> None:
    assert SCHEME.resolve({"cost-label": "qwen-coder-finetune-sft"}).problem == (
        "unknown phase 'finetune' in cost label 'qwen-coder-finetune-sft'"
    )
    assert (
        SCHEME.resolve({"cost-label": "qwen"}).problem
        == "cost label 'qwen' is not <project>-<phase>-<method>"
    )


def test_vocabularies_keys_and_aliases_are_configurable() -> None:
    scheme = LabelScheme(
        LabelsConfig(
            project="team",
            composite="alloc",
            phases=["train", "serve"],
            methods=["dpo"],
            aliases={"serving": "serve"},
        )
    )
    assert scheme.resolve({"alloc": "search-serving-dpo"}).phase == "serve"
    assert scheme.resolve({"team": "search", "phase": "train", "method": "dpo"}).project == "search"


def test_coverage_shares_stay_within_0_and_100_percent_with_credits(run, project) -> None:
    """Credits as rows made the old shares of a 10.00 total 200 % (tag), 500 % (unattributed) and -600 %
    (shared). Shares are of the cost before credits: by hand, 100 / 150 and 50 / 150, and 0 for a rule
    that is all credit."""
    from focus_files import write_focus

    tags = {"project": "qwen-coder", "phase": "train", "method": "sft"}
    write_focus(
        project.root / "bill.csv",
        [
            {"BilledCost": "100.00", "Tags": tags, "ResourceId": "i-0aaa"},
            {"BilledCost": "-80.00", "Tags": tags, "ChargeCategory": "Credit", "ServiceName": "Credits"},
            {"BilledCost": "50.00", "ResourceId": "i-0bbb"},
            {"BilledCost": "-60.00", "ChargeCategory": "Credit", "ServiceName": "Credits"},
        ],
    )
    project.write_config('[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n')
    assert run("ingest").exit_code == 0
    assert run("attribute").exit_code == 0
    result = run("labels", "--period", "2026-11")
    assert result.exit_code == 0, result.stderr
    rows = {line.split()[0]: line.split()[-2:] for line in result.stdout.splitlines()[3:7] if line}
    assert rows == {
        "tag": ["20.00", "66.7%"],
        "unattributed": ["50.00", "33.3%"],
        "shared": ["-60.00", "0.0%"],
    }


def test_coverage_counts_a_charge_once_per_rule_it_has_shares_in(nightly_warehouse: Project) -> None:
    """A charge split among experiments (several shares of one rule) and onto idle time counts once in
    each rule: the distinct (rule, charge) pairs of the shares, counted here in Python."""
    con = duckdb.connect(str(nightly_warehouse.warehouse), read_only=True)
    shares = con.execute("SELECT rule, currency, charge_id FROM allocations").fetchall()
    con.close()
    pairs = Counter((rule, currency, charge) for rule, currency, charge in shares)
    assert any(n > 1 for n in pairs.values())  # the demo has charges with several shares in one rule
    assert len({charge for _, _, charge in shares}) < len(pairs)  # and charges in several rules
    expected = Counter((rule, currency) for rule, currency, _ in pairs)
    result = CliRunner().invoke(
        cli, ["--config", str(nightly_warehouse.config), "labels", "--format", "json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    coverage = json.loads(result.stdout)["coverage"]
    assert {(r["rule"], r["currency"]): r["charges"] for r in coverage} == dict(expected)


def test_money_that_rounds_to_nothing_is_never_minus_zero() -> None:
    from decimal import Decimal

    from trainledger.outputs.tables import cell

    assert [cell(Decimal(v), money=True) for v in ("-0.004", "-0.005", "-0.006", "0")] == [
        "0.00",
        "0.00",
        "-0.01",
        "0.00",
    ]
