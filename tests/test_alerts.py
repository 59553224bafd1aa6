"""Budget alerts posted to a webhook: once per threshold per period, retried, and the URL kept secret."""

from __future__ import annotations

from collections.abc import Callable

import duckdb
import pytest
from click.testing import Result

from conftest import Project
from fakes import http_server, posted_json, webhook
from trainledger.outputs import alerts

SECRET_PATH = "/services/T0001/B0002/s3cr3t-token"

# qwen-coder's demo month costs 1670.84338538 in the cloud + 6428.42 off-cloud (EffectiveCost): 81.0 % of
# 10000, so 50 % and 80 % are crossed.
BUDGET = """
[[budgets]]
name = "qwen-coder-monthly"
project = "qwen-coder"
period = "monthly"
amount = "10000.00"
currency = "USD"
thresholds = [0.5, 0.8, 1.0]
"""


def configure(project: Project, url: str, timeout_s: float = 2, retries: int = 3) -> None:
    text = project.config.read_text(encoding="utf-8").split("[[budgets]]")[0]
    project.write_config(
        text
        + BUDGET
        + f'\n[alerts]\nwebhook_url = "{url}{SECRET_PATH}"\ntimeout_s = {timeout_s}\nretries = {retries}\n'
    )


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(alerts, "BACKOFF_S", 0.01)


def assert_secret_kept(*results: Result) -> None:
    for result in results:
        assert "s3cr3t" not in result.stdout + result.stderr


def sent(project: Project) -> list[tuple[str, str, str]]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute("SELECT budget, period, threshold FROM alerts_sent ORDER BY ALL").fetchall()
    finally:
        con.close()


def test_each_crossed_threshold_is_posted_once_per_period(
    run: Callable[..., Result], project: Project
) -> None:
    with http_server(webhook()) as hook:
        configure(project, hook.url)
        first, second = run("nightly"), run("nightly")
    assert (first.exit_code, second.exit_code) == (2, 2)  # still over budget: the scheduler's signal stays
    posts = posted_json(hook)
    assert [p["trainledger"]["threshold"] for p in posts] == ["0.5", "0.8"]
    assert posts[0]["text"] == (
        "trainledger: budget qwen-coder-monthly (2026-11) crossed 50%: spent 8099.26 USD of 10000.00 USD"
    )
    expected = {
        "budget": "qwen-coder-monthly",
        "period": "2026-11",
        "currency": "USD",
        "amount": "10000.00",
        "spent": "8099.26338538",
        "used": "0.8099",
        "crossed": ["0.5", "0.8"],
        "threshold": "0.8",
    }
    assert {key: posts[1]["trainledger"][key] for key in expected} == expected
    assert {r.path for r in hook.requests} == {SECRET_PATH}
    assert {r.headers["content-type"] for r in hook.requests} == {"application/json"}
    assert sent(project) == [
        ("qwen-coder-monthly", "2026-11", "0.5"),
        ("qwen-coder-monthly", "2026-11", "0.8"),
    ]
    assert "posted 2 budget alert(s) to the webhook" in first.stderr
    assert "posted" not in second.stderr and "not delivered" not in second.stderr
    assert_secret_kept(first, second)


def test_a_server_error_or_a_timeout_is_retried_until_delivered(
    run: Callable[..., Result], project: Project
) -> None:
    # 0 = no answer at all (the request hangs past timeout_s).
    with http_server(webhook([500, 0, 503])) as hook:
        configure(project, hook.url, timeout_s=0.3)
        result = run("nightly")
    assert result.exit_code == 2
    assert [p["trainledger"]["threshold"] for p in posted_json(hook)] == ["0.5", "0.5", "0.5", "0.5", "0.8"]
    assert len(sent(project)) == 2
    assert "not delivered" not in result.stderr
    assert_secret_kept(result)


def test_an_undeliverable_alert_is_a_warning_without_the_url_and_is_tried_again(
    run: Callable[..., Result], project: Project
) -> None:
    with http_server(webhook([500, 500])) as hook:
        configure(project, hook.url, retries=1)
        failed = run("nightly")
        assert sent(project) == [("qwen-coder-monthly", "2026-11", "0.8")]
        assert (
            "budget alert qwen-coder-monthly 2026-11 at 0.5 not delivered: the webhook answered HTTP 500, after 2 attempt(s)"
            in failed.stderr
        )
        again = run("nightly")
    assert len(sent(project)) == 2
    assert [p["trainledger"]["threshold"] for p in posted_json(hook)] == ["0.5", "0.5", "0.8", "0.5"]
    # A receiver that is down: the message says so, still without the URL.
    configure(project, "http://127.0.0.1:9")
    con = duckdb.connect(str(project.warehouse))
    con.execute("DELETE FROM alerts_sent")
    con.close()
    down = run("nightly")
    assert "not delivered: the webhook did not answer (" in down.stderr
    assert_secret_kept(failed, again, down)


def test_thresholds_are_one_key_however_written() -> None:
    assert {alerts.threshold_key(v) for v in ("0.8", "0.80", ".8", 0.8)} == {"0.8"}
    assert alerts.threshold_key("1.0") == "1"
