"""The label scheme of SPEC §3, as a table of tag sets and what they resolve to."""

from __future__ import annotations

import pytest

from trainledger.attribution.labels import LabelScheme, canonical_key
from trainledger.core.config import LabelsConfig

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
