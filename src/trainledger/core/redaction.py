"""Credentials never reach a terminal, a log, an export, a webhook or the warehouse: every message passes
here first.

Masking is by value and by shape. By value: the credentials found in every URI of every config field
(user info, secret query parameters, the webhook URL whole) and in the standard secret environment
variables, so a library's message that repeats a URI in another form (a bucket name
``"AKIA…:secret@bucket"``, a decoded password) is masked too. By shape: URL user info and query
parameters named like credentials, so a message about a URI we never configured is safe as well.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

if TYPE_CHECKING:
    from trainledger.core.config import Config
    from trainledger.core.config_types import SourceConfig

MASK = "***"
# Environment variables whose values are credentials (the AWS SDK's, Google's and MLflow's standard names).
SECRET_ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
    "MLFLOW_TRACKING_TOKEN",
    "MLFLOW_TRACKING_PASSWORD",
)
# Environment variables holding URIs that may carry credentials (their secret parts are masked).
URI_ENV = ("TRAINLEDGER_ALERTS_WEBHOOK_URL", "MLFLOW_TRACKING_URI", "TRAINLEDGER_LOG")
# Query parameters that carry or shape a credential: anything named like a token, key, password,
# signature or secret; OAuth/Azure Functions ``code``; every AWS ``X-Amz-*`` and Google ``X-Goog-*``
# parameter of a presigned URL; the parts of an Azure SAS token (sv, se, sp, st, sr, ... and sig).
_SECRET_NAME = (
    r"[a-z0-9_.-]*(?:token|secret|password|passwd|pwd|key|signature|credential|sig|auth)[a-z0-9_.-]*"
    r"|code|x-amz-[a-z0-9-]+|x-goog-[a-z0-9-]+"
    r"|sv|ss|srt|sp|se|st|spr|sr|sip|si|skoid|sktid|skt|ske|sks|skv|sdd"
)
_SECRET_PARAM = re.compile(rf"(?i)([?&;](?:{_SECRET_NAME})=)[^&#\s'\"]+")
_SECRET_NAME_ONLY = re.compile(rf"(?i)(?:{_SECRET_NAME})")
# Parameters masked by shape but not worth masking by value: their values (a date, "r") are ordinary words.
_SHAPE_ONLY = re.compile(
    r"(?i)sv|ss|srt|sp|se|st|spr|sr|sip|si|sdd|x-(?:amz|goog)-(?:date|expires|signedheaders|algorithm)"
)
# scheme://user@ or scheme://user:password@, the password possibly holding '/' (an AWS secret key does);
# "host:9000/path@x" is a port, not a password.
_USERINFO = re.compile(
    r"(?i)\b([a-z][a-z0-9+.-]*://)(?:[^/\s@'\"]+|[^/\s@:'\"]*:(?!\d+(?:[/\s'\"]|$))[^\s@'\"]+)@"
)
_MIN_SECRET = 6  # shorter values (a port, "true") would mask ordinary words


def _variants(value: str) -> list[str]:
    """A secret as written, percent-decoded and percent-encoded: libraries print any of the three."""
    return [value, unquote(value), quote(unquote(value), safe="")]


def userinfo(uri: str) -> tuple[str, str] | None:
    """(user, password) written into ``uri``; the password may hold '/', which urlsplit would cut."""
    found = re.match(r"(?i)[a-z][a-z0-9+.-]*://([^/\s@:]*)(?::([^\s@]*))?@", uri)
    if not found:
        return None
    user, password = found.group(1), found.group(2) or ""
    if re.match(r"\d+(?:/|$)", password):
        return None  # "host:9000/path@x": a port, no user info
    return user, password


def url_secrets(url: str | None, *, whole: bool = False) -> list[str]:
    """The parts of ``url`` that are credentials: its user info and secret query values; with ``whole``
    (a webhook URL, a secret as a whole) also the URL, its path and query, and long path segments."""
    if not url or "://" not in url:
        return []
    found: list[str] = []
    info = userinfo(url)
    if info:
        user, password = info
        whole_info = f"{user}:{password}" if password else user
        # A '/' in the password makes other parsers cut it there: "AKIA…:first-half" is a bucket name to them.
        cut = f"{user}:{password.split('/')[0]}" if "/" in password else ""
        pieces = (whole_info, cut, password, *password.split("/"), user)
        found.extend(v for part in pieces if part for v in _variants(part))
    try:
        parts = urlsplit(url)
    except ValueError:
        return found
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if _SECRET_NAME_ONLY.fullmatch(name) and not _SHAPE_ONLY.fullmatch(name):
            found.extend(_variants(value))
    if whole:
        found.append(url)
        tail = parts.path + (f"?{parts.query}" if parts.query else "")
        if len(tail) > 1:
            found.extend([tail, parts.path])
            found.extend(seg for seg in parts.path.split("/") if len(seg) >= 16)
        if parts.query:
            found.append(parts.query)
    return found


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a config dump (nested dicts and lists)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def config_secrets(config: Config) -> list[str]:
    """The credentials in every URI of every config field (and of the URI environment variables); the
    webhook URL whole, since whoever has it can post; the admin key of every source that names the
    environment variable holding one (``api_key_env``: OpenAI, Anthropic)."""
    found: list[str] = [
        key for s in config.sources if (key := os.environ.get(_option(s, "api_key_env") or ""))
    ]
    for text in _strings(config.model_dump(mode="json")):
        found.extend(url_secrets(text))
    found.extend(url_secrets(config.alerts.webhook_url, whole=True))
    found.extend(url_secrets(os.environ.get("TRAINLEDGER_ALERTS_WEBHOOK_URL"), whole=True))
    for name in URI_ENV:
        found.extend(url_secrets(os.environ.get(name)))
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
    """Mask credentials on every line of ``text``: known secret values first, then anything shaped like
    one."""
    known = [s for s in secrets if s] + [v for name in SECRET_ENV if (v := os.environ.get(name))]
    for secret in sorted({s for s in known if len(s) >= _MIN_SECRET}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _USERINFO.sub(rf"\1{MASK}@", text)
    return _SECRET_PARAM.sub(rf"\1{MASK}", text)
