"""SageMaker training jobs and HyperPod clusters: categories by usage type, the job as the experiment id."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from bills import PERIOD_END, Charge, add_charges, at, warehouse
from examples import init_with, readme_toml
from trainledger.attribution import allocations
from trainledger.attribution.categories import Categorizer
from trainledger.core.config import Config, parse
from trainledger.core.config_spend import CategoriesConfig
from trainledger.core.labels import LabelScheme
from trainledger.core.reporter import Silent


@pytest.mark.parametrize(
    ("usage_type", "category"),
    [
        ("USE1-Train:ml.p4d.24xlarge", "compute"),  # training job instance-hours
        ("USE1-Train:VolumeUsage.gp2", "storage"),  # its ML storage volume
        ("USE1-Cluster:ml.p5.48xlarge", "compute"),  # HyperPod cluster instance-hours
        ("USE1-Cluster:VolumeUsage.gp2", "storage"),
        ("USE1-Notebk:ml.t3.medium", "compute"),
    ],
)
def test_sagemaker_usage_types(usage_type: str, category: str) -> None:
    categorizer = Categorizer(CategoriesConfig())
    assert categorizer.categorize("Amazon SageMaker", usage_type, provider="aws") == (category, True)


def test_a_training_job_tag_is_the_experiment() -> None:
    con = warehouse()
    job = {"user_sagemaker:training-job-name": "exp-sm-7", "user_cost-label": "qwen-coder-train-sft"}
    add_charges(
        con,
        [
            Charge("train", Decimal("65.8872"), at(0), at(2), "arn:aws:sagemaker:us-east-1:1:training-job/exp-sm-7",
                   job, service_name="Amazon SageMaker", usage_type="USE1-Train:ml.p4d.24xlarge"),
            Charge("volume", Decimal("0.28"), at(0), PERIOD_END, None, job, service_name="Amazon SageMaker",
                   usage_type="USE1-Train:VolumeUsage.gp2"),
        ],
    )  # fmt: skip
    config = Config.model_validate({"labels": {"experiment": ["experiment", "sagemaker:training-job-name"]}})
    allocations.attribute(con, config, Silent())
    rows = con.execute(
        "SELECT experiment_id, project, phase, method, cost_category, effective_cost FROM allocations ORDER BY 6"
    ).fetchall()
    assert rows == [
        ("exp-sm-7", "qwen-coder", "train", "sft", "storage", Decimal("0.28")),
        ("exp-sm-7", "qwen-coder", "train", "sft", "compute", Decimal("65.8872")),
    ]


def test_the_readme_and_init_examples_make_the_job_the_experiment(tmp_path: Path) -> None:
    job = {"user_sagemaker:training-job-name": "exp-sm-7", "user_cost-label": "qwen-coder-train-sft"}
    [readme] = readme_toml("Managed training")
    init = init_with(
        'experiment = ["experiment", "sagemaker:training-job-name"]',
        instead_of=('experiment = "experiment"',),
    )
    for text in (readme, init):
        resolved = LabelScheme(parse(text, "example", tmp_path).labels).resolve(job)
        assert (resolved.experiment_id, resolved.project, resolved.phase) == (
            "exp-sm-7",
            "qwen-coder",
            "train",
        )
