"""Credentials never reach a terminal, a log, an export or the warehouse: every message passes here first.

Masking is by shape (URL user info, secret-looking query parameters) and by value (secret environment
variables, and the configured values that carry secrets, such as a webhook URL whose token sits in its
path), so a message from a library we do not control is safe too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from trainledger.core.config import Config, SourceConfig

MASK = "***"
# Environment variables whose values are credentials (the AWS SDK's and Google's standard names).
SECRET_ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@'\"]+@")
_SECRET_PARAM = re.compile(
    r"(?i)([?&;](?:[a-z0-9_.-]*(?:token|secret|password|passwd|key|signature|credential|sig|auth)"
    r"[a-z0-9_.-]*)=)[^&\s'\"]+"
)
_MIN_SECRET = 6  # shorter values (a port, "true") would mask ordinary words


def url_secrets(url: str | None) -> list[str]:
    """The parts of a URL that may be a credential: the URL, its user info, path and query."""
    if not url:
        return []
    parts = urlsplit(url)
    found = [url]
    if parts.password:
        found.append(parts.password)
    if parts.username and parts.password:
        found.append(parts.username)
    tail = parts.path + (f"?{parts.query}" if parts.query else "")
    if len(tail) > 1:
        found.extend([tail, parts.path])
        found.extend(seg for seg in parts.path.split("/") if len(seg) >= 16)
    if parts.query:
        found.append(parts.query)
    return found


def config_secrets(config: Config) -> list[str]:
    """Configured values that carry credentials: the webhook URL whole, user info of endpoint URLs."""
    found = url_secrets(config.alerts.webhook_url)
    for source in config.sources:
        for url in (_option(source, "endpoint_url"), _option(source, "api_endpoint"), _option(source, "uri")):
            parts = urlsplit(url or "")
            if parts.password:
                found.append(parts.password)
    return found


def stored_secrets(config: Config) -> list[str]:
    """What stored records (the run ledger) mask besides credentials: role ARNs, which name the access
    path into the payer account. The terminal still shows them to the person fixing a failed run."""
    return config_secrets(config) + [arn for s in config.sources if (arn := _option(s, "role_arn"))]


def _option(source: SourceConfig, key: str) -> str | None:
    """A source's option by name, None when its kind has no such key."""
    value = getattr(source.options, key, None)
    return value if isinstance(value, str) else None


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Mask credentials in ``text``: known secret values first, then anything shaped like one."""
    known = [s for s in secrets if s] + [v for name in SECRET_ENV if (v := os.environ.get(name))]
    for secret in sorted({s for s in known if len(s) >= _MIN_SECRET}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _USERINFO.sub(rf"\1{MASK}@", text)
    return _SECRET_PARAM.sub(rf"\1{MASK}", text)
