"""Budget alerts to a webhook: one Slack-compatible JSON POST per crossed threshold, once per period.

The payload is ``{"text": "<one line for people>", "trainledger": {<the alert's fields>}}``: Slack and
chat tools show ``text``, other receivers read the structured part. Each (budget, period, threshold) is
posted once; ``alerts_sent`` remembers it after the receiver said 2xx, so a failed delivery is tried
again by the next run. 5xx, 429, timeouts and refused connections are retried with backoff; once the
webhook has not answered at all, the remaining alerts wait for the next run, since the run holds the
warehouse while it posts.

The URL is a secret (whoever has it can post): it is never printed, logged or put in a message. It comes
from ``TRAINLEDGER_ALERTS_WEBHOOK_URL`` when set, else ``[alerts] webhook_url``.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from trainledger.core.config import Config
from trainledger.core.money import fmt
from trainledger.core.redaction import config_secrets, redact
from trainledger.core.reporter import Reporter
from trainledger.reports.budgets import write_alerts
from trainledger.warehouse.connection import Connection, run

URL_ENV = "TRAINLEDGER_ALERTS_WEBHOOK_URL"
BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0
UNREACHABLE = "the webhook did not answer"


def threshold_key(value: object) -> str:
    """One spelling per threshold (``0.8``, ``0.80`` and ``.8`` are one key)."""
    try:
        number = Decimal(str(value)).normalize()
    except InvalidOperation:
        return str(value)
    return f"{number:f}"


def _money(value: object) -> str:
    try:
        return fmt(Decimal(str(value)), 2)
    except InvalidOperation:
        return str(value)


def message(alert: dict[str, Any]) -> str:
    if alert.get("kind") == "max_share":
        return f"trainledger: {alert['message']}"
    share = Decimal(threshold_key(alert["threshold"])) * 100
    currency = alert.get("currency", "")
    return (
        f"trainledger: budget {alert['budget']} ({alert['period']}) crossed {share:.0f}%: "
        f"spent {_money(alert.get('spent'))} {currency} of {_money(alert.get('amount'))} {currency}"
    )


def payload(alert: dict[str, Any]) -> bytes:
    fields = {k: (str(v) if isinstance(v, Decimal) else v) for k, v in alert.items()}
    return json.dumps({"text": message(alert), "trainledger": fields}, default=str).encode("utf-8")


def _redact(text: str, url: str) -> str:
    parts = urlsplit(url)
    for secret in (url, parts.path, parts.query, parts.netloc):
        if secret and len(secret) > 1:
            text = text.replace(secret, "<webhook>")
    return text


def post(url: str, body: bytes, timeout_s: float, retries: int) -> str | None:
    """POST with retries; None when delivered, else why not (never containing the URL). urllib's HTTP
    client (ssl, email) loads here: most runs have no alert to post."""
    import urllib.error
    import urllib.request

    problem = "not attempted"
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(min(BACKOFF_S * 2 ** (attempt - 1), MAX_BACKOFF_S))
        request = urllib.request.Request(
            url, data=body, method="POST", headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                response.read()
            return None
        except urllib.error.HTTPError as exc:
            problem = f"the webhook answered HTTP {exc.code}"
            if exc.code < 500 and exc.code != 429:
                return problem
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            problem = f"{UNREACHABLE} ({_redact(str(reason), url) or type(exc).__name__})"
    return f"{problem}, after {retries + 1} attempt(s)"


def deliver(con: Connection, config: Config, alerts: list[dict[str, Any]], reporter: Reporter) -> int:
    """Post each alert not yet sent; returns how many were delivered now."""
    url = os.environ.get(URL_ENV) or config.alerts.webhook_url
    if not url or not alerts:
        return 0
    if urlsplit(url).scheme not in ("http", "https"):
        reporter.warn("[alerts] webhook_url is not an http(s) URL; no budget alert was posted")
        return 0
    delivered = 0
    for index, alert in enumerate(alerts):
        key = {
            "budget": alert["budget"],
            "period": alert["period"],
            "threshold": threshold_key(alert["threshold"]),
        }
        seen = run(con, "export/alert_sent", key).fetchone()
        if seen:
            continue
        body = redact(payload(alert).decode("utf-8"), config_secrets(config)).encode("utf-8")
        problem = post(url, body, config.alerts.timeout_s, max(config.alerts.retries, 0))
        if problem:
            reporter.warn(
                f"budget alert {key['budget']} {key['period']} at {key['threshold']} not delivered: {problem}; "
                "the next run tries again"
            )
            if problem.startswith(UNREACHABLE):  # down: each further alert would wait as long again
                reporter.warn(
                    f"the webhook is not answering; {len(alerts) - index - 1} more alert(s) wait for the next run"
                )
                break
            continue
        run(con, "export/alert_record", {**key, "at": datetime.now(UTC).replace(tzinfo=None)})
        delivered += 1
    if delivered:
        reporter.step(f"posted {delivered} budget alert(s) to the webhook")
    return delivered


def publish(
    con: Connection, config: Config, found: list[dict[str, Any]], path: Path | None, reporter: Reporter
) -> None:
    """The one place alerts leave: the alerts file (when there is one; ``[]`` when nothing is crossed)
    is written first, then each alert not yet delivered is posted to the webhook."""
    if path is not None:
        write_alerts(path, found)
    deliver(con, config, found, reporter)
