"""No planted secret in any channel: a config whose every URI carries credentials in every form (user
info with a '/' in the password, presigned X-Amz-* parameters, Azure SAS parts, ``code=``, ``pwd=``,
``token``, ``key``, ``password``, ``secret``, ``signature``), a good run that posts to a webhook and
writes exports, then failing runs whose errors repeat those URIs. Every output is grepped: stdout,
stderr, `runs --format json`, export files, webhook bodies, and the warehouse's bytes and tables."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from conftest import Project, demo_config
from fakes import Server, http_server, webhook
from trainledger.cli import cli
from trainledger.outputs import alerts

ACCESS_KEY = "AKIAPLANTEDKEY000042"
SECRET_KEY = "PlantedSecret/Half+Two0000000000000000000"  # AWS secret keys hold '/' and '+'
SECRETS = {
    "access key in user info": ACCESS_KEY,
    "secret key in user info": SECRET_KEY,
    "first half of the secret key": SECRET_KEY.split("/")[0],
    "endpoint password": "EndpointPassw0rd-planted",
    "X-Amz-Signature": "a1b2c3d4e5f6PlantedAmzSig",
    "X-Amz-Credential": "AKIAPLANTEDCRED00077",
    "X-Amz-Security-Token": "PlantedSessionTokenFwoGZXIvYXdzE",
    "token=": "PlantedQueryToken123",
    "key=": "PlantedApiKey4567890",
    "password=": "PlantedQueryPassw0rd",
    "secret=": "PlantedQuerySecret99",
    "signature=": "PlantedSignature0001",
    "pwd=": "PlantedPwdValue00002",
    "code=": "PlantedFunctionCode3",
    "SAS sig": "PlantedSasSig%2BAbC%3D",
    "SAS sig decoded": "PlantedSasSig+AbC=",
    "SAS sv": "2099-01-31",
    "SAS se": "2099-02-28T00:00:00Z",
    "SAS sp": "racwdlPlanted",
    "webhook path token": "PlantedWebhookPathToken0042",
    "webhook code": "PlantedWebhookCode0042",
    "tracking password": "TrackingPassw0rd-planted",
}
S = SECRETS
SAS = f"sv={S['SAS sv']}&se={S['SAS se']}&sp={S['SAS sp']}&sig={S['SAS sig']}"
PRESIGNED = (
    f"X-Amz-Credential={S['X-Amz-Credential']}&X-Amz-Signature={S['X-Amz-Signature']}"
    f"&X-Amz-Security-Token={S['X-Amz-Security-Token']}"
)
QUERY = (
    f"token={S['token=']}&key={S['key=']}&password={S['password=']}&secret={S['secret=']}"
    f"&signature={S['signature=']}&pwd={S['pwd=']}&code={S['code=']}"
)
S3_WITH_USERINFO = f"s3://{ACCESS_KEY}:{SECRET_KEY}@ml-billing/cur/ml-cur2"
LOG_OVER_HTTPS = f"https://reader:{S['tracking password']}@logs.example.invalid/runs?{SAS}&{QUERY}"


def config(demo_files: Path, hook: Server, *, log_uri: str, s3_enabled: bool) -> str:
    text = demo_config(demo_files, budget=True).replace('amount = "6000.00"', 'amount = "100.00"')
    text = text.replace(f'uri = "{demo_files / "experiments.jsonl"}"', f'uri = "{log_uri}"')
    text = text.replace(
        "[experiments]\n",
        f'[experiments]\ntracking_uri = "https://ml:{S["tracking password"]}@mlflow.example.invalid/?{SAS}"\n',
    )
    return text + (
        f'\n[[sources]]\nname = "payer"\nkind = "aws-cur2"\nuri = "{S3_WITH_USERINFO}"\n'
        f'endpoint_url = "http://minio:{S["endpoint password"]}@127.0.0.1:9/?{PRESIGNED}"\n'
        f"enabled = {str(s3_enabled).lower()}\n"
        f'\n[[sources]]\nname = "gcp"\nkind = "gcp-billing"\ntable = "p.d.t"\nenabled = false\n'
        f'api_endpoint = "https://bq.example.invalid/v2?{QUERY}"\n'
        f'\n[alerts]\nwebhook_url = "{hook.url}/hook/{S["webhook path token"]}?code={S["webhook code"]}"\n'
        "timeout_s = 2\nretries = 0\n"
    )


def leaks(root: Path, channels: dict[str, str]) -> list[str]:
    """Each planted secret found in a channel, the warehouse's files (bytes) and tables, or any other file
    under the project (exports, alerts.json); the config itself holds them by design."""
    texts = dict(channels)
    for path in root.rglob("*"):
        if path.is_file() and path.name != "trainledger.toml":
            texts[f"file {path.relative_to(root)}"] = path.read_bytes().decode("utf-8", "replace")
    con = duckdb.connect(str(root / ".trainledger" / "ledger.duckdb"), read_only=True)
    for (table,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
        texts[f"table {table}"] = repr(con.execute(f'SELECT * FROM "{table}"').fetchall())
    con.close()
    return [f"{what} in {where}" for where, text in texts.items() for what, s in SECRETS.items() if s in text]


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_MAX_ATTEMPTS": "1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setattr(alerts, "BACKOFF_S", 0.01)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_no_planted_secret_reaches_any_channel(isolated: Path, demo_files: Path) -> None:
    project = Project(isolated)

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    with http_server(webhook()) as hook:
        project.write_config(
            config(demo_files, hook, log_uri=str(demo_files / "experiments.jsonl"), s3_enabled=False)
        )
        good = invoke("--verbose", "nightly", "--alerts-out", "alerts.json")
        assert good.exit_code == 2, good.stderr  # the lowered budget is crossed: alerts posted
        project.write_config(
            config(demo_files, hook, log_uri=S3_WITH_USERINFO.replace("cur/", ""), s3_enabled=False)
        )
        s3_log = invoke("--verbose", "nightly")
        s3_log_debug = invoke("--debug", "nightly")
        project.write_config(config(demo_files, hook, log_uri=LOG_OVER_HTTPS, s3_enabled=False))
        https_log = invoke("--verbose", "--debug", "nightly")
        project.write_config(
            config(demo_files, hook, log_uri=str(demo_files / "experiments.jsonl"), s3_enabled=True)
        )
        s3_source = invoke("--verbose", "ingest", "--source", "payer")
        ledger = invoke("runs", "--format", "json", "--limit", "20")
    bodies = [r.body.decode() for r in hook.requests]
    assert bodies and all('"budget": "math-reasoner-november"' in b for b in bodies)
    assert [r.exit_code for r in (s3_log, s3_log_debug, https_log, s3_source)] == [1, 1, 1, 1]
    # The errors still say which URI failed, with its credentials masked.
    assert "s3://***@ml-billing/ml-cur2" in s3_log.stderr
    assert "https://***@logs.example.invalid/runs?sv=***&se=***&sp=***&sig=***&token=***" in https_log.stderr
    assert ledger.stdout.count('"outcome": "failed"') == 4, ledger.stdout
    channels = {
        f"{name} {stream}": text
        for name, result in {
            "good run": good,
            "s3 log": s3_log,
            "s3 log --debug": s3_log_debug,
            "https log": https_log,
            "s3 source": s3_source,
            "runs --format json": ledger,
        }.items()
        for stream, text in (("stdout", result.stdout), ("stderr", result.stderr))
    }
    channels.update({f"webhook body {i}": body for i, body in enumerate(bodies)})
    assert leaks(isolated, channels) == []
