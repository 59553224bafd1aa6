"""One GET of a provider's admin API (OpenAI, Anthropic): bounded in time, retried when the service is busy.

The standard library's HTTP client, loaded only when a source calls an API. Each attempt waits at most
``timeout_s`` (to connect and for each read); a 429 or 5xx answer, a timeout or a dropped connection is
tried again ``retries`` times, after the ``Retry-After`` the service asks for (seconds, capped at
``timeout_s``) or else a doubling backoff. Any other answer fails at once. The headers carry the admin key:
they are never put in a message, and the message names the URL, which holds no key.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from trainledger.core.errors import SourceError

BACKOFF_S = 1.0  # doubled after each failed attempt
_DETAIL_CHARS = 200


def get_text(source: str, url: str, headers: Mapping[str, str], *, timeout_s: float, retries: int) -> str:
    """The body of a 200 answer to ``GET url``, as text; a SourceError naming the source otherwise."""
    import urllib.error
    import urllib.request

    problem = "not attempted"
    for attempt in range(retries + 1):
        wait = BACKOFF_S * 2**attempt
        request = urllib.request.Request(url, headers=dict(headers), method="GET")
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                body: bytes = response.read()
            return _utf8(source, url, body)
        except urllib.error.HTTPError as exc:
            problem = f"HTTP {exc.code}{_detail(exc)}"
            if exc.code != 429 and exc.code < 500:
                raise SourceError(f"source {source!r}: GET {url}: {problem}{_hint(exc.code)}") from None
            wait = _retry_after(exc.headers.get("Retry-After"), wait, timeout_s)
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            problem = f"no answer ({reason or type(exc).__name__})"
        if attempt < retries:
            time.sleep(wait)
    raise SourceError(
        f"source {source!r}: GET {url}: {problem}, after {retries + 1} attempt(s) (the source's timeout_s "
        "and retries)"
    )


def _utf8(source: str, url: str, body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise SourceError(
            f"source {source!r}: GET {url}: the answer is not UTF-8 text; expected JSON"
        ) from None


def _detail(exc: object) -> str:
    """The first words of an error answer's body (the provider's own message), on one line."""
    try:
        text = exc.read().decode("utf-8", "replace")  # type: ignore[attr-defined]
    except (OSError, AttributeError):
        return ""
    text = " ".join(text.split())[:_DETAIL_CHARS]
    return f": {text}" if text else ""


def _hint(code: int) -> str:
    if code in (401, 403):
        return "; check that the environment variable named by api_key_env holds an admin key of the organization"
    return ""


def _retry_after(value: str | None, default: float, cap: float) -> float:
    """The wait a 429 or 503 asks for (whole seconds), within ``cap``; ``default`` when it says none."""
    if value is None or not value.strip().isdigit():
        return min(default, cap)
    return min(float(value.strip()), cap)
