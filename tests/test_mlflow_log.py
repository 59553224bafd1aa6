"""MLflow runs as the experiment log: a real sqlite tracking store, ingested with kind = "mlflow"."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import Project
from trainledger.core import config as config_module
from trainledger.core.reporter import Silent
from trainledger.experiments import mlflow_log

mlflow = pytest.importorskip("mlflow", reason="the mlflow extra is not installed")


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).timestamp() * 1000)


def log_run(
    client, experiment_id: str, start: str, end: str | None, status: str, tags=None, params=None, metrics=None
):
    run = client.create_run(experiment_id, start_time=ms(start), tags=tags or {})
    for key, value in (params or {}).items():
        client.log_param(run.info.run_id, key, value)
    for key, value in (metrics or {}).items():
        client.log_metric(run.info.run_id, key, value, timestamp=ms(start))
    if end:
        client.set_terminated(run.info.run_id, status=status, end_time=ms(end))
    return run.info.run_id


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An MLflow sqlite store as teams have it: a plain run, a parent with one child run per phase, a failed
    run, one still running, and a run of another MLflow experiment."""
    path = tmp_path_factory.mktemp("mlflow") / "mlflow.db"
    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{path}")
    post = client.create_experiment("post-training")
    other = client.create_experiment("pretraining")
    log_run(
        client, post, "2026-11-03T08:00:00Z", "2026-11-04T02:30:00Z", "FINISHED",
        tags={
            "experiment_id": "exp-sft-0412", "project": "qwen-coder", "method": "sft", "phase": "train",
            "resource_id": "i-0a11000000000001", "provider": "aws", "gpus": "8",
            "trainledger.estimate": '{"currency": "USD", "train": 950, "eval": 110}',
        },
        params={"model_params_b": "7", "gpu_type": "H100", "gpus": "8", "mfu": '{"train": 0.4}', "lr": "2e-5"},
        metrics={"target_before": 0.41, "target_after": 0.55, "general.before": 0.62, "general/after": 0.60, "loss": 1.3},
    )  # fmt: skip
    parent = log_run(
        client, post, "2026-11-18T01:00:00Z", "2026-11-19T05:30:00Z", "FINISHED",
        tags={
            "experiment_id": "exp-opd-0425", "project": "distill-small", "method": "opd",
            "trainledger.estimate": '{"currency": "USD", "rollout": 1200, "train": 300, "eval": 40}',
        },
        params={"model_params_b": "1.5", "teacher_params_b": "32"},
    )  # fmt: skip
    child = {"mlflow.parentRunId": parent}
    log_run(client, post, "2026-11-18T01:00:00Z", "2026-11-19T04:00:00Z", "FINISHED", tags={
        **child, "phase": "rollout",
        "trainledger.resources": '[{"provider": "aws", "resource_id": "i-0c33000000000001", "gpus": 8}]',
    })  # fmt: skip
    log_run(client, post, "2026-11-18T01:00:00Z", "2026-11-19T04:00:00Z", "FINISHED", tags={
        **child, "phase": "train", "resource_id": "i-0c33000000000002", "gpus": "8",
    })  # fmt: skip
    log_run(client, post, "2026-11-19T04:00:00Z", "2026-11-19T05:30:00Z", "FINISHED", tags={
        **child, "phase": "eval", "resource_id": "i-0c33000000000002", "gpus": "8",
    })  # fmt: skip
    log_run(client, post, "2026-11-14T00:30:00Z", "2026-11-14T08:15:00Z", "FAILED", tags={
        "experiment_id": "exp-rl-0421", "project": "math-reasoner", "method": "grpo", "phase": "train",
        "resource_id": "i-0b22000000000003",
    })  # fmt: skip
    log_run(
        client, post, "2026-11-20T00:00:00Z", None, "RUNNING", tags={"project": "qwen-coder", "method": "sft"}
    )
    log_run(
        client,
        other,
        "2026-11-01T00:00:00Z",
        "2026-11-02T00:00:00Z",
        "FINISHED",
        tags={"experiment_id": "pt-1"},
    )
    return path


def mlflow_config(project: Project, demo_files: Path, tracking_uri: str) -> str:
    text = project.config.read_text(encoding="utf-8")
    return text.replace(
        f'uri = "{demo_files / "experiments.jsonl"}"',
        f'kind = "mlflow"\ntracking_uri = "{tracking_uri}"\nexperiment_name = "post-training"',
    )


def test_runs_map_to_spec_records(store: Path, project: Project, demo_files: Path) -> None:
    project.write_config(mlflow_config(project, demo_files, f"sqlite:///{store}"))
    config = config_module.load(project.config)
    records = {r["experiment_id"]: r for _, r in mlflow_log.records(config, Silent())}
    assert sorted(k for k in records if len(k) != 32) == ["exp-opd-0425", "exp-rl-0421", "exp-sft-0412"]
    assert len(records) == 4  # and the running run without an experiment_id tag, under its run id
    sft = records["exp-sft-0412"]
    assert sft == {
        "experiment_id": "exp-sft-0412",
        "project": "qwen-coder",
        "method": "sft",
        "status": "succeeded",
        "started_at": "2026-11-03T08:00:00Z",
        "ended_at": "2026-11-04T02:30:00Z",
        "estimate": {"currency": "USD", "train": 950, "eval": 110},
        "params": {"model_params_b": 7, "gpu_type": "H100", "gpus": 8, "mfu": {"train": Decimal("0.4")}, "lr": Decimal("2E-5")},
        "metrics": {
            "target": {"before": Decimal("0.41"), "after": Decimal("0.55")},
            "general": {"before": Decimal("0.62"), "after": Decimal("0.6")},
        },
        "phases": [
            {
                "phase": "train",
                "started_at": "2026-11-03T08:00:00Z",
                "ended_at": "2026-11-04T02:30:00Z",
                "resources": [{"resource_id": "i-0a11000000000001", "provider": "aws", "gpus": 8}],
            }
        ],
    }  # fmt: skip
    opd = records["exp-opd-0425"]
    assert [(p["phase"], p["resources"][0]["resource_id"], p["ended_at"]) for p in opd["phases"]] == [
        ("rollout", "i-0c33000000000001", "2026-11-19T04:00:00Z"),
        ("train", "i-0c33000000000002", "2026-11-19T04:00:00Z"),
        ("eval", "i-0c33000000000002", "2026-11-19T05:30:00Z"),
    ]
    assert (opd["status"], opd["started_at"], opd["ended_at"]) == (
        "succeeded",
        "2026-11-18T01:00:00Z",
        "2026-11-19T05:30:00Z",
    )
    assert records["exp-rl-0421"]["status"] == "failed"
    running = next(r for k, r in records.items() if len(k) == 32)  # no experiment_id tag: the run id
    assert running["status"] == "running" and "ended_at" not in running


def test_nightly_ingests_mlflow_runs_and_reconciles_one(
    store: Path, run, project: Project, demo_files: Path
) -> None:
    project.write_config(mlflow_config(project, demo_files, f"sqlite:///{store}"))
    result = run("nightly")
    assert result.exit_code in (0, 2), result.stderr  # 2: the demo budget is crossed
    assert "MLflow sqlite:///" in result.stderr and "7 run(s), 4 experiment(s)" in result.stderr
    report = json.loads(run("reconcile", "exp-sft-0412", "--format", "json").stdout)
    train = next(r for r in report["rows"] if (r["phase"], r["category"]) == ("train", "compute"))
    # The same 22 hours of p5.48xlarge as with the JSON Lines log, against the estimate from the run's tag.
    assert (train["estimated"], train["realized"], train["variance"]) == ("950.00", "1210.88", "260.88")
    opd = json.loads(run("reconcile", "exp-opd-0425", "--format", "json").stdout)
    # cloud 2,111.883 (the teacher's idle hours apart) + the LLM-judge pass on the student 96.10 (ledger)
    assert opd["totals"] == {"estimated": "1540.00", "realized": "2207.983", "variance": "667.983"}


def test_a_relative_sqlite_store_is_next_to_the_config_and_must_exist(
    run, project: Project, demo_files: Path
) -> None:
    project.write_config(mlflow_config(project, demo_files, "sqlite:///tracking/mlflow.db"))
    result = run("nightly")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] + "\n" == (
        f"trainledger: error: MLflow store {project.root / 'tracking/mlflow.db'} does not exist "
        f"(tracking_uri sqlite:///{project.root / 'tracking/mlflow.db'})\n"
    )
    assert not (project.root / "tracking").exists()


def test_credentials_in_a_tracking_uri_are_not_shown() -> None:
    assert (
        mlflow_log.safe_uri("https://alice:s3cret@mlflow.example.com/api") == "https://mlflow.example.com/api"
    )
    assert mlflow_log.safe_uri("sqlite:////var/mlflow.db") == "sqlite:////var/mlflow.db"
