"""The run logger inside a training job: SPEC §5 records, where the job runs, and never breaking the job."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import boto3
import duckdb
import pytest

from conftest import Project
from fakes import ec2_imds, fake_nvidia_smi, gce_metadata, gcs_emulator, hangs, http_server, moto_s3
from trainledger import runlog
from trainledger.core import config as config_module
from trainledger.core.labels import LabelScheme
from trainledger.core.reporter import Silent
from trainledger.experiments import log as experiment_log


@pytest.fixture
def no_gpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without nvidia-smi and without CUDA_VISIBLE_DEVICES."""
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


@pytest.fixture
def eight_gpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_nvidia_smi(bin_dir, 8)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")


@pytest.fixture
def on_ec2(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    with http_server(ec2_imds("i-0e55000000000001")) as imds:
        monkeypatch.setenv("TRAINLEDGER_IMDS_ENDPOINT", imds.url)
        yield imds


def merged(records: list[tuple[str, dict]]) -> dict[str, experiment_log.Experiment]:
    scheme = LabelScheme(config_module.Config().labels)
    return {
        key: experiment_log.build(where, rec, scheme)
        for key, (where, rec) in experiment_log.merge(records, Silent()).items()
    }


def test_start_phase_end_append_spec_records_that_merge_into_one_experiment(tmp_path: Path, no_gpus) -> None:
    log = tmp_path / "experiments.jsonl"
    runlog.start(
        "exp-sft-0520",
        project="qwen-coder",
        method="sft",
        phase="train",
        params={"model_params_b": 7, "gpus": 8, "gpu_type": "H100"},
        estimate={"currency": "USD", "train": 1800, "eval": 250},
        resource_id="i-0e55000000000001",
        provider="aws",
        gpus=8,
        log=str(log),
        at="2026-11-20T00:00:00Z",
    )
    runlog.phase("eval", at="2026-11-20T08:00:00Z")
    runlog.end("succeeded", metrics={"target": {"before": 0.41, "after": 0.55}}, at="2026-11-20T10:00:00Z")

    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [line["status"] for line in lines] == ["running", "running", "succeeded"]
    assert lines[0] == {
        "experiment_id": "exp-sft-0520",
        "project": "qwen-coder",
        "method": "sft",
        "status": "running",
        "started_at": "2026-11-20T00:00:00Z",
        "params": {"model_params_b": 7, "gpus": 8, "gpu_type": "H100"},
        "estimate": {"currency": "USD", "train": 1800, "eval": 250},
        "phases": [
            {
                "phase": "train",
                "started_at": "2026-11-20T00:00:00Z",
                "resources": [{"provider": "aws", "resource_id": "i-0e55000000000001", "gpus": 8}],
            }
        ],
    }
    experiment = merged(experiment_log.read_records(log))["exp-sft-0520"]
    assert (experiment.status, experiment.metrics) == (
        "succeeded",
        {"target": {"before": Decimal("0.41"), "after": Decimal("0.55")}},
    )
    assert [
        (w.phase, w.resource_id, w.gpus, w.started_at.isoformat(), w.ended_at.isoformat())
        for w in experiment.windows
    ] == [
        ("train", "i-0e55000000000001", 8, "2026-11-20T00:00:00", "2026-11-20T08:00:00"),
        ("eval", "i-0e55000000000001", 8, "2026-11-20T08:00:00", "2026-11-20T10:00:00"),
    ]


def test_ec2_instance_id_comes_from_imdsv2_with_a_session_token(on_ec2, eight_gpus) -> None:
    placement = runlog.detect(timeout_s=2)
    assert (placement.provider, placement.resource_id, placement.gpus) == ("aws", "i-0e55000000000001", 8)
    token_put, id_get = on_ec2.requests
    assert (token_put.method, token_put.path) == ("PUT", "/latest/api/token")
    assert int(token_put.headers["x-aws-ec2-metadata-token-ttl-seconds"]) > 0
    assert (id_get.method, id_get.path) == ("GET", "/latest/meta-data/instance-id")
    assert id_get.headers["x-aws-ec2-metadata-token"] == "AQAEAFake-token=="


def test_gce_instance_name_and_numeric_id_come_from_the_metadata_server(monkeypatch, no_gpus) -> None:
    with http_server(gce_metadata("trainer-a3-0", "4520031799277581759")) as metadata:
        monkeypatch.setenv("TRAINLEDGER_GCE_METADATA_ENDPOINT", metadata.url)
        placement = runlog.detect(timeout_s=2)
    assert placement.resource() == {
        "provider": "gcp",
        "resource_id": "trainer-a3-0",
        "instance_id": "4520031799277581759",
    }
    assert {r.headers["metadata-flavor"] for r in metadata.requests} == {"Google"}


def test_gpus_are_the_visible_devices_else_nvidia_smi(monkeypatch, eight_gpus) -> None:
    assert runlog.detect(timeout_s=2).gpus == 8
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    assert runlog.detect(timeout_s=2).gpus == 2


def test_explicit_values_and_environment_skip_the_probes(monkeypatch, on_ec2, eight_gpus) -> None:
    assert runlog.detect(resource_id="i-0123456789abcdef0", provider="aws", gpus=4).resource() == {
        "provider": "aws",
        "resource_id": "i-0123456789abcdef0",
        "gpus": 4,
    }
    monkeypatch.setenv("TRAINLEDGER_RESOURCE_ID", "i-0fedcba9876543210")
    monkeypatch.setenv("TRAINLEDGER_PROVIDER", "aws")
    monkeypatch.setenv("TRAINLEDGER_GPUS", "2")
    assert runlog.detect().resource() == {"provider": "aws", "resource_id": "i-0fedcba9876543210", "gpus": 2}
    assert on_ec2.requests == []


def test_a_hanging_metadata_server_delays_the_job_no_longer_than_the_timeout(
    monkeypatch, tmp_path, no_gpus
) -> None:
    with http_server(hangs) as silent:
        monkeypatch.setenv("TRAINLEDGER_IMDS_ENDPOINT", silent.url)
        monkeypatch.setenv("TRAINLEDGER_GCE_METADATA_ENDPOINT", silent.url)
        began = time.monotonic()
        with pytest.warns(runlog.RunlogWarning, match="could not tell which machine"):
            run = runlog.start(
                "exp-hang", project="p", method="sft", log=str(tmp_path / "log.jsonl"), timeout_s=2.0
            )
        elapsed = time.monotonic() - began
        assert len(silent.requests) == 2  # both probes reached the server, which never answered
    # One shared deadline: probes one after the other would take 4 s or more. The 2 s timeout leaves
    # room for a loaded CI machine between that and the deadline.
    assert elapsed < 2 * 2.0, f"start took {elapsed:.2f}s with a 2s metadata timeout"
    assert run.written == [str(tmp_path / "log.jsonl")]


def test_failures_to_record_are_warnings_and_a_stuck_write_is_abandoned(
    monkeypatch, tmp_path, no_gpus
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    with pytest.warns(runlog.RunlogWarning, match="could not record the start of exp-x"):
        run = runlog.start("exp-x", resource_id="i-0aaa", log=str(blocker / "log.jsonl"))
    assert run.written == []
    with http_server(hangs) as stuck:
        monkeypatch.setenv("AWS_ENDPOINT_URL", stuck.url)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        began = time.monotonic()
        with pytest.warns(runlog.RunlogWarning, match="took over 0.3s"):
            runlog.start("exp-y", resource_id="i-0aaa", log="s3://ml-logs/runs/", write_timeout_s=0.3)
        # The write itself never ends (botocore waits 60 s per read, then retries); start must return
        # soon after its 0.3 s. The margin covers detection and a loaded CI machine (1.8 s seen).
        assert time.monotonic() - began < 0.3 + 10
    # The abandoned write ends once the server has gone; wait for it while this test's AWS settings hold,
    # or it may create its client under the next test's and write there.
    for thread in threading.enumerate():
        if thread.name == "trainledger-write":
            thread.join(60)
    with pytest.warns(runlog.RunlogWarning, match="before runlog.start"):
        runlog._current = None
        runlog.end()


def test_records_under_an_s3_prefix_are_objects_read_back_in_order(monkeypatch, no_gpus) -> None:
    with moto_s3(monkeypatch, "ml-logs"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with runlog.start(
                "exp-rl-0601",
                project="math-reasoner",
                method="rl",
                phase="rollout",
                resource_id="i-0b22000000000001",
                gpus=8,
                log="s3://ml-logs/trainledger/runs",
                at="2026-11-10T01:00:00Z",
            ) as run:
                run.phase("train", at="2026-11-11T01:00:00Z")
        keys = [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket="ml-logs")["Contents"]]
        records = experiment_log.read_object_records("s3://ml-logs/trainledger/runs", Silent())
    assert len(keys) == 3 and all(k.startswith("trainledger/runs/") and "-exp-rl-0601-" in k for k in keys)
    assert [where.split(":")[-1] for where, _ in records] == ["1", "1", "1"]
    assert [rec.get("status") for _, rec in records] == ["running", "running", "succeeded"]
    experiment = merged(records)["exp-rl-0601"]
    assert next((w.phase, w.ended_at.isoformat()) for w in experiment.windows) == (
        "rollout",
        "2026-11-11T01:00:00",
    )
    assert experiment.status == "succeeded"


def test_records_under_a_gs_prefix_are_objects_read_back_in_order(monkeypatch, no_gpus) -> None:
    with gcs_emulator(monkeypatch, "ml-logs"):
        run = runlog.start(
            "exp-opd-0602",
            project="distill-small",
            method="opd",
            phase="rollout",
            resource_id="trainer-a3-0",
            provider="gcp",
            gpus=8,
            log="gs://ml-logs/runs/",
            at="2026-11-18T01:00:00Z",
        )
        run.end("failed", at="2026-11-18T03:00:00Z")
        records = experiment_log.read_object_records("gs://ml-logs/runs/", Silent())
    assert run.written[0].startswith("gs://ml-logs/runs/2")
    assert [rec["status"] for _, rec in records] == ["running", "failed"]
    assert merged(records)["exp-opd-0602"].ended_at.isoformat() == "2026-11-18T03:00:00"


def test_reading_a_missing_bucket_is_one_clear_error(monkeypatch) -> None:
    from trainledger.core.errors import SourceError

    with (
        moto_s3(monkeypatch),
        pytest.raises(
            SourceError, match=r"^s3://no-such-bucket/runs/: cannot read the experiment log: NoSuchBucket"
        ),
    ):
        experiment_log.read_object_records("s3://no-such-bucket/runs/", Silent())


def test_importing_the_run_logger_loads_no_warehouse_or_cloud_library() -> None:
    code = (
        "import sys, trainledger.runlog; "
        "print(sorted(m for m in ('duckdb', 'polars', 'pyarrow', 'pydantic', 'boto3', 'google.cloud.storage', 'click') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_logged_run_lands_in_the_log_and_its_machine_cost_on_the_experiment(
    monkeypatch, on_ec2, eight_gpus, project: Project, run
) -> None:
    """End to end: the job logs to S3 from an EC2 instance it detects; nightly reads the prefix and puts
    the instance's hours (tagged project and method only) on the logged experiment."""
    with moto_s3(monkeypatch, "ml-logs"):
        lines = project.config.read_text(encoding="utf-8").splitlines()
        project.write_config(
            "\n".join(
                'uri = "s3://ml-logs/trainledger/runs/"' if "experiments.jsonl" in line else line
                for line in lines
            )
        )
        job = runlog.start(
            "exp-sft-0520",
            project="qwen-coder",
            method="sft",
            phase="train",
            log="s3://ml-logs/trainledger/runs/",
            timeout_s=2,
            at="2026-11-20T00:00:00Z",
        )
        job.end("succeeded", at="2026-11-20T10:00:00Z")
        key = job.written[0].removeprefix("s3://ml-logs/")
        body = boto3.client("s3").get_object(Bucket="ml-logs", Key=key)["Body"].read()
        assert json.loads(body)["phases"][0]["resources"] == [
            {"provider": "aws", "resource_id": "i-0e55000000000001", "gpus": 8}
        ]
        result = run("nightly")
    assert result.exit_code in (0, 2), result.stderr  # 2: the demo budget is crossed
    con = duckdb.connect(str(project.warehouse), read_only=True)
    rows = con.execute(
        """
        SELECT a.experiment_id, a.phase, a.rule, count(*), sum(a.effective_cost)
        FROM allocations a JOIN charges c USING (charge_id)
        WHERE c.resource_id = 'i-0e55000000000001' AND c.usage_type LIKE 'BoxUsage%'
        GROUP BY ALL
        """
    ).fetchall()
    # Ten hours of p4d.24xlarge at $21.958, tagged cost-label=qwen-coder-finetune-sft (unknown phase).
    assert [(e, p, r, n, str(c)) for e, p, r, n, c in rows] == [
        ("exp-sft-0520", "train", "tag", 10, "219.580000000000")
    ]
