"""Shared Kubernetes GPU nodes: EKS split cost allocation rows in CUR 2.0, GKE cost allocation labels.

EKS (fixtures/generate_clusters.py ``write_eks_scenario``): node i-0e5c0000000000a01, a p5.48xlarge at
$55.04 an hour for 24 hours of 2026-11-10, tagged project=qwen-coder. Its pods' split cost is $6.88 per
GPU-hour (55.04 / 8), the system pods' (kube-system: aws-node, coredns) $0.64 and $0.32 an hour, and the
node's unused capacity is spread over the pods so that Σ (split + unused) per hour is the node's hour.
Worked out by hand:

exp-eks-sft (4 GPUs, 00-12):   12 h x 27.52 = 330.24, train, qwen-coder, sft (pod labels)
exp-eks-rl (2 GPUs, 06-18):    12 h x 13.76 = 165.12, rollout, math-reasoner, rl (pod cost-label)
system pods (00-24):           24 h x (0.64 + 0.32) = 23.04, no project: unattributed
node unused, idle qwen-coder:  6 x (55.04 - 27.52 - 0.96) + 6 x (55.04 - 27.52 - 13.76 - 0.96)
                               + 6 x (55.04 - 13.76 - 0.96) + 6 x (55.04 - 0.96)
                               = 159.36 + 76.80 + 241.92 + 324.48 = 802.56
sum: 24 x 55.04 = 1320.96, the bill; the pod rows' own cost is 0, the node row is not counted twice.

GKE (``write_gke_scenario``): November 2026 of a node pool costing $230.00 a day, split by cost allocation:

namespace training, exp-gke-sft (cost-label qwen-coder-train-sft), days 1-20 at 100.00:   2000.00 train
namespace math-reasoner, pod labels phase=eval method=rl, days 1-30 at 40.00:             1200.00 eval
namespace math-reasoner, exp-gke-rl (phase=rollout method=rl), days 11-30 at 60.00:       1200.00 rollout
kube:system-overhead, days 1-30 at 5.00:                                                   150.00
kube:unallocated, the rest: 10 x (230 - 5 - 140) + 10 x (230 - 5 - 200) + 10 x (230 - 5 - 100)
                            = 850.00 + 250.00 + 1250.00 = 2350.00; with the overhead 2500.00 unattributed
sum: 30 x 230.00 = 6900.00, the bill.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import generate_clusters
from examples import init_with, readme_toml
from trainledger.cli import cli
from trainledger.connectors.aws_cur import cur2_name
from trainledger.core.config import parse
from trainledger.core.config_labels import LabelsConfig
from trainledger.core.labels import LabelScheme, canonical_key

EKS_CONFIG = """
[[sources]]
name = "cur"
kind = "aws-cur2"
uri = "eks-cur2"

[experiments]
uri = "experiments.jsonl"

[labels]
experiment = ["experiment", "trainledger.io/experiment"]
composite = ["cost-label", "trainledger.io/cost-label"]
"""

GKE_CONFIG = """
[[sources]]
name = "gke"
kind = "gcp-billing"
uri = "gke-billing"

[labels]
project_fallback = "k8s-namespace"
"""


def nightly(root: Path, config: str) -> Path:
    (root / "trainledger.toml").write_text(config, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--config", str(root / "trainledger.toml"), "nightly"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return root


def query(root: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(root / ".trainledger" / "ledger.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


PER_CHARGE = (  # charges whose shares do not sum to them exactly, for BilledCost or EffectiveCost
    "SELECT count(*) FROM charges c JOIN (SELECT charge_id, sum(billed_cost) b, sum(effective_cost) e "
    "FROM allocations GROUP BY 1) a USING (charge_id) WHERE a.b <> c.billed_cost OR a.e <> c.effective_cost"
)
BY_KEY = (
    "SELECT coalesce(experiment_id, '-'), coalesce(phase, '-'), coalesce(project, '-'), coalesce(method, '-'), "
    "rule, sum(billed_cost), sum(effective_cost) FROM allocations GROUP BY ALL ORDER BY 1, 2, 3, 5"
)


@pytest.fixture(scope="module")
def eks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("eks")
    generate_clusters.write_eks_scenario(root)
    return nightly(root, EKS_CONFIG)


EKS_BY_KEY = [
    ("-", "-", "-", "-", "unattributed", Decimal("23.04"), Decimal("23.04")),
    ("-", "idle", "qwen-coder", "-", "idle", Decimal("802.56"), Decimal("802.56")),
    ("exp-eks-rl", "rollout", "math-reasoner", "rl", "tag", Decimal("165.12"), Decimal("165.12")),
    ("exp-eks-sft", "train", "qwen-coder", "sft", "tag", Decimal("330.24"), Decimal("330.24")),
]


def test_pods_take_their_split_cost_and_the_node_keeps_its_idle(eks: Path) -> None:
    assert query(eks, BY_KEY) == EKS_BY_KEY


def test_the_node_is_never_counted_twice(eks: Path) -> None:
    table = pq.read_table(next((eks / "eks-cur2" / "data").rglob("*.parquet"))).to_pylist()
    invoice = sum(Decimal(repr(r["line_item_unblended_cost"])) for r in table)
    restated = sum(Decimal(repr(r["split_line_item_split_cost"] or 0)) for r in table)
    assert invoice == Decimal("1320.96") and restated > 0
    [(charges, allocated)] = query(
        eks, "SELECT (SELECT sum(billed_cost) FROM charges), (SELECT sum(effective_cost) FROM allocations)"
    )
    assert charges == allocated == invoice  # not invoice + the pods' split cost
    assert query(eks, PER_CHARGE) == [(0,)]
    kinds = query(eks, "SELECT resource_type, count(*) FROM charges GROUP BY 1 ORDER BY 1")
    assert kinds == [("k8s-node", 24), ("k8s-pod", 72)]  # 12 + 12 + 24 + 24 pod-hours


def test_reconcile_a_run_in_pods(eks: Path) -> None:
    result = CliRunner().invoke(
        cli, ["--config", str(eks / "trainledger.toml"), "reconcile", "exp-eks-sft", "--format", "json"]
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["provisional"] is False
    assert report["totals"]["realized"] == "330.24"
    # the node's unused capacity while the run was on it (00-12): 6 x 26.56 + 6 x 12.80
    assert report["waste"]["idle"] == "236.16"


def test_reconcile_of_pods_is_provisional_until_the_bill_reaches_the_runs_end(tmp_path: Path) -> None:
    """The first delivery bills the node and its pods to 10:00, before the SFT run's end at 12:00; the next
    one, the whole day."""
    generate_clusters.write_eks_scenario(tmp_path)
    rows = generate_clusters.read_cur2(tmp_path, "eks-cur2")
    early = [r for r in rows if r["line_item_usage_end_date"] <= generate_clusters.at(10)]
    generate_clusters.write_cur2(tmp_path, early, "eks-cur2")
    nightly(tmp_path, EKS_CONFIG)
    report = reconcile_json(tmp_path, "exp-eks-sft")
    assert (report["provisional"], report["billing_complete_through"]) == (True, "2026-11-10T10:00:00Z")
    assert report["totals"]["realized"] == "275.20"  # 10 h x 27.52 so far
    generate_clusters.write_eks_scenario(tmp_path)  # the whole day
    nightly(tmp_path, EKS_CONFIG)
    report = reconcile_json(tmp_path, "exp-eks-sft")
    assert (report["provisional"], report["billing_complete_through"]) == (False, "2026-11-11T00:00:00Z")
    assert [(r["phase"], r["category"], r["realized"]) for r in report["rows"]] == [
        ("train", "compute", "330.24")
    ]
    assert report["waste"]["idle"] == "236.16"


def reconcile_json(root: Path, experiment: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["--config", str(root / "trainledger.toml"), "reconcile", experiment, "--format", "json"]
    )
    assert result.exit_code == 0, result.stderr
    return dict(json.loads(result.stdout))


def test_legacy_cur_split_columns_land_on_the_same_names() -> None:
    assert cur2_name("splitLineItem/ParentResourceId") == "split_line_item_parent_resource_id"
    assert cur2_name("splitLineItem/SplitCost") == "split_line_item_split_cost"
    assert cur2_name("splitLineItem/UnusedCost") == "split_line_item_unused_cost"
    assert cur2_name("splitLineItem/PublicOnDemandSplitCost") == "split_line_item_public_on_demand_split_cost"


@pytest.fixture(scope="module")
def gke(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gke")
    generate_clusters.write_gke_scenario(root)
    return nightly(root, GKE_CONFIG)


def test_gke_labels_namespace_fallback_and_system_namespaces(gke: Path) -> None:
    d = Decimal
    # experiment and phase from k8s-label/ pod labels, math-reasoner's project from its namespace; GKE's own
    # kube:* namespaces name no project
    assert query(gke, BY_KEY) == [
        ("-", "-", "-", "-", "unattributed", d("2500.00"), d("2500.00")),
        ("-", "eval", "math-reasoner", "rl", "tag", d("1200.00"), d("1200.00")),
        ("exp-gke-rl", "rollout", "math-reasoner", "rl", "tag", d("1200.00"), d("1200.00")),
        ("exp-gke-sft", "train", "qwen-coder", "sft", "tag", d("2000.00"), d("2000.00")),
    ]
    by_day = query(
        gke,
        "SELECT strftime(charge_period_start, '%d'), sum(effective_cost) FROM allocations "
        "WHERE experiment_id = 'exp-gke-sft' GROUP BY 1 ORDER BY 1",
    )
    assert [day for day, _ in by_day] == [f"{n:02d}" for n in range(1, 21)]
    assert {cost for _, cost in by_day} == {d("100.00")}


def test_gke_month_adds_up_to_the_export(gke: Path) -> None:
    [export] = (gke / "gke-billing").glob("*.json")
    rows = [json.loads(line, parse_float=Decimal) for line in export.read_text(encoding="utf-8").splitlines()]
    invoice = sum(r["cost"] + sum((c["amount"] for c in r["credits"]), Decimal(0)) for r in rows)
    # a day's rows: the workloads running (3, 4 on days 11-20 with both experiments) and kube:unallocated
    assert invoice == Decimal("6900.00") and len(rows) == 10 * 4 + 10 * 5 + 10 * 4
    assert {r["invoice"]["month"] for r in rows} == {"202611"}
    [(billed, effective, allocated_billed, allocated_effective)] = query(
        gke,
        "SELECT (SELECT sum(billed_cost) FROM charges), (SELECT sum(effective_cost) FROM charges), "
        "(SELECT sum(billed_cost) FROM allocations), (SELECT sum(effective_cost) FROM allocations)",
    )
    assert billed == effective == allocated_billed == allocated_effective == invoice
    assert query(gke, PER_CHARGE) == [(0,)]


def test_kubernetes_label_keys_fold_to_the_scheme() -> None:
    assert canonical_key("k8s-label/cost-label") == "cost_label"
    assert canonical_key("user_trainledger.io/project") == canonical_key("trainledger.io/project")
    scheme = LabelScheme(LabelsConfig(project=["project"], project_fallback=["k8s-namespace"]))
    resolved = scheme.resolve({"k8s-namespace": "team-a", "k8s-label/cost-label": "qwen-coder-train-sft"})
    assert (resolved.project, resolved.phase, resolved.method) == ("qwen-coder", "train", "sft")
    assert scheme.resolve({"k8s-namespace": "team-a"}).project == "team-a"
    assert scheme.resolve({"k8s-namespace": "kube:unallocated"}).status == "untagged"


# Pod tags as the bills carry them: EKS split cost rows (user_ + the Kubernetes label key, the aws:eks tags in
# CUR 2.0's spelling) and GKE cost allocation labels.
EKS_POD = {
    "user_trainledger.io/experiment": "exp-eks-sft",
    "user_trainledger.io/cost-label": "qwen-coder-train-sft",
    "aws_eks_namespace": "training",
}
GKE_POD = {"goog-k8s-cluster-name": "train-gke", "k8s-namespace": "math-reasoner", "k8s-label/phase": "eval",
           "k8s-label/method": "rl", "k8s-label/trainledger.io/experiment": "exp-gke-rl"}  # fmt: skip


def test_the_readme_examples_read_pod_labels(tmp_path: Path) -> None:
    eks, gke = readme_toml("Shared Kubernetes GPU nodes")
    eks_config = parse(eks, "README.md", tmp_path)
    assert [s.kind for s in eks_config.sources] == ["aws-cur2"]
    pod = LabelScheme(eks_config.labels).resolve(EKS_POD)
    assert (pod.experiment_id, pod.project, pod.phase, pod.method) == (
        "exp-eks-sft",
        "qwen-coder",
        "train",
        "sft",
    )
    gke_config = parse(gke, "README.md", tmp_path)
    assert [s.kind for s in gke_config.sources] == ["gcp-billing"]
    pod = LabelScheme(gke_config.labels).resolve(GKE_POD)
    assert (pod.project, pod.phase, pod.method) == ("math-reasoner", "eval", "rl")


def test_init_has_the_kubernetes_examples(tmp_path: Path) -> None:
    eks = init_with(
        'experiment = ["experiment", "trainledger.io/experiment"]',
        'project_fallback = "aws:eks:namespace"',
        instead_of=('experiment = "experiment"',),
    )
    eks_pod = LabelScheme(parse(eks, "init", tmp_path).labels).resolve(
        {
            "user_trainledger.io/experiment": "exp-eks-sft",
            "aws_eks_namespace": "qwen-coder",
        }  # CUR 2.0 spelling
    )
    assert (eks_pod.experiment_id, eks_pod.project) == ("exp-eks-sft", "qwen-coder")
    gke = init_with(
        'experiment = ["experiment", "trainledger.io/experiment"]',
        'project_fallback = "k8s-namespace"',
        instead_of=('experiment = "experiment"',),
    )
    gke_pod = LabelScheme(parse(gke, "init", tmp_path).labels).resolve(GKE_POD)
    assert (gke_pod.experiment_id, gke_pod.project, gke_pod.phase) == ("exp-gke-rl", "math-reasoner", "eval")
