"""A dead or busy server never hangs the night: every network call (MLflow, webhooks, metadata servers, and
the cloud connectors' S3 and Google APIs) is bounded by its timeout and retries, and the experiment log is
read before the warehouse's write lock is taken, so readers and the next run are never blocked by a stuck
fetch.

The servers are real local HTTP servers that accept the connection and never answer (or answer 503)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from click.testing import Result

from conftest import Project
from fakes import Seen, Server, ec2_imds, hangs, http_server
from trainledger import runlog

pytestmark = pytest.mark.slow

TRAINLEDGER = str(Path(sys.executable).parent / "trainledger")


def test_a_dead_mlflow_server_fails_the_run_in_seconds_without_holding_the_warehouse(
    nightly_warehouse: Project, tmp_path: Path
) -> None:
    pytest.importorskip("mlflow", reason="the mlflow extra is not installed")
    project = Project(tmp_path)
    project.write_config(nightly_warehouse.config.read_text(encoding="utf-8"))
    warehouse = project.warehouse
    warehouse.parent.mkdir(mode=0o700)
    warehouse.write_bytes(nightly_warehouse.warehouse.read_bytes())
    with http_server(hangs) as mlflow:
        text = project.config.read_text(encoding="utf-8")
        start, rest = text.split("[experiments]", 1)
        rest = rest.split("\n[", 1)[1]
        project.write_config(
            f'{start}[experiments]\nkind = "mlflow"\ntracking_uri = "{mlflow.url}"\ntimeout_s = 1\nretries = 1\n\n[{rest}'
        )
        began = time.monotonic()
        job = subprocess.Popen(
            [TRAINLEDGER, "--config", str(project.config), "nightly"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "7", "MLFLOW_HTTP_REQUEST_TIMEOUT": "120"},
        )
        try:
            while not mlflow.requests and time.monotonic() - began < 30:
                time.sleep(0.05)
            assert mlflow.requests, "the run never asked the MLflow server"
            # While the run waits for MLflow, the warehouse is free: another writer gets it at once.
            con = duckdb.connect(str(warehouse))
            assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
            con.close()
            _, stderr = job.communicate(timeout=60)
        finally:
            if job.poll() is None:  # never leave the run behind when an assertion fails
                job.kill()
                job.wait()
        took = time.monotonic() - began
    assert job.returncode == 1, stderr
    assert took < 20, f"a dead MLflow server held the run {took:.0f}s"
    assert len(mlflow.requests) == 2  # one request, one retry
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(f"trainledger: error: MLflow {mlflow.url}: "), stderr
    assert "Traceback" not in stderr
    con = duckdb.connect(str(warehouse), read_only=True)
    outcomes = con.execute("SELECT outcome FROM runs ORDER BY started_at").fetchall()
    con.close()
    assert outcomes == [("ok",), ("failed",)]  # the failure is in the ledger, as any other


def test_a_webhook_that_never_answers_costs_one_alert_s_attempts(run, project: Project) -> None:
    text = project.config.read_text(encoding="utf-8").split("[[budgets]]")[0]
    budget = (
        '\n[[budgets]]\nname = "all"\nperiod = "monthly"\namount = "10.00"\ncurrency = "USD"\n'
        "thresholds = [0.5, 0.8, 1.0]\n"
    )
    with http_server(hangs) as hook:
        project.write_config(
            f'{text}{budget}\n[alerts]\nwebhook_url = "{hook.url}/h"\ntimeout_s = 0.5\nretries = 1\n'
        )
        began = time.monotonic()
        result = run("nightly")
        took = time.monotonic() - began
    assert result.exit_code == 2
    assert len(hook.requests) == 2  # the first alert and its retry; the two others wait
    assert "the webhook is not answering; 2 more alert(s) wait for the next run" in result.stderr
    assert took < 30


def test_a_busy_metadata_server_is_retried_within_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    imds = ec2_imds("i-0123456789abcdef0")
    busy = [503, 429]

    def respond(seen: Seen, server: Server) -> tuple[int, dict[str, str], bytes] | None:
        return (busy.pop(0), {}, b"") if busy else imds(seen, server)

    with http_server(respond) as server:
        monkeypatch.setenv("TRAINLEDGER_IMDS_ENDPOINT", server.url)
        monkeypatch.delenv("AWS_EC2_METADATA_DISABLED", raising=False)
        assert runlog.ec2_instance_id(5.0) == "i-0123456789abcdef0"
        monkeypatch.setenv("TRAINLEDGER_METADATA_RETRIES", "0")
        busy.append(503)
        with pytest.raises(OSError, match="503"):
            runlog.ec2_instance_id(5.0)


def test_timeouts_and_retries_are_bounded_in_the_config(tmp_path: Path) -> None:
    from trainledger.core import config as config_module
    from trainledger.core.errors import ConfigError

    defaults = config_module.Config()
    assert (defaults.experiments.timeout_s, defaults.experiments.retries) == (30.0, 2)
    assert (defaults.alerts.timeout_s, defaults.alerts.retries) == (5.0, 3)
    with pytest.raises(
        ConfigError, match=r"experiments.timeout_s: Input should be less than or equal to 600"
    ):
        config_module.parse("[experiments]\ntimeout_s = 3600\n", "t.toml", tmp_path)
    with pytest.raises(ConfigError, match=r"alerts.retries: Input should be less than or equal to 10"):
        config_module.parse("[alerts]\nretries = 100\n", "t.toml", tmp_path)


def _cloud_source_hangs(run, project: Project, source: str) -> tuple[Result, float]:
    """``ingest`` of one more ``[[sources]]`` entry whose endpoint never answers: the result and its time."""
    project.write_config(project.config.read_text(encoding="utf-8") + source)
    began = time.monotonic()
    result = run("ingest", "--source", "dead")
    return result, time.monotonic() - began


def test_an_s3_endpoint_that_never_answers_fails_the_source_in_seconds(
    run, project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    with http_server(hangs) as s3:
        result, took = _cloud_source_hangs(
            run,
            project,
            f'\n[[sources]]\nname = "dead"\nkind = "aws-cur2"\nuri = "s3://billing/cur/ml-cur2"\n'
            f'endpoint_url = "{s3.url}"\ntimeout_s = 1\nretries = 1\n',
        )
    assert result.exit_code == 1, result.stderr
    assert len(s3.requests) == 2  # one ListObjectsV2, one retry
    assert result.stderr.splitlines()[-1] == (
        "trainledger: error: source 'dead': cannot list s3://billing/cur/ml-cur2/: no answer within 1 s, "
        "2 attempt(s) (the source's timeout_s and retries)"
    )
    assert took < 20, f"a dead S3 endpoint held the run {took:.0f}s"


def test_a_gcp_api_that_never_answers_fails_the_source_in_seconds(run, project: Project) -> None:
    with http_server(hangs) as catalog:
        result, took = _cloud_source_hangs(
            run,
            project,
            f'\n[[sources]]\nname = "dead"\nkind = "gcp-catalog"\napi_endpoint = "{catalog.url}"\n'
            "timeout_s = 1\nretries = 1\n",
        )
    assert result.exit_code == 1, result.stderr
    assert len(catalog.requests) == 2  # one services.list, one retry
    last = result.stderr.splitlines()[-1]
    assert last.startswith(
        "trainledger: error: source 'dead': reading the Cloud Billing Catalog: no answer within 1 s, "
        "2 attempt(s) (the source's timeout_s and retries; last: "
    ), result.stderr
    assert took < 20, f"a dead Cloud Billing Catalog held the run {took:.0f}s"


def test_cloud_timeouts_and_retries_are_bounded_per_source(tmp_path: Path) -> None:
    from trainledger.core import config as config_module
    from trainledger.core.errors import ConfigError

    for kind in ("aws-cur2", "gcp-billing"):
        source = config_module.parse(
            f'[[sources]]\nname = "s"\nkind = "{kind}"\n', "t.toml", tmp_path
        ).sources[0]
        assert (source.options.timeout_s, source.options.retries) == (60.0, 2)  # type: ignore[attr-defined]
        with pytest.raises(ConfigError, match=r"timeout_s: Input should be less than or equal to 600"):
            config_module.parse(
                f'[[sources]]\nname = "s"\nkind = "{kind}"\ntimeout_s = 3600\n', "t.toml", tmp_path
            )
