"""What every GCP connector shares: client construction and one-line errors from Google API failures.

With ``api_endpoint`` set (a local fake, an emulator, a private endpoint) the clients talk to it with
anonymous credentials; otherwise they use Application Default Credentials, as gcloud does. Every call
waits at most ``timeout_s`` (to connect and for each read) and is retried ``retries`` times with backoff
(:func:`bounded`, the libraries' own open-ended retries turned off), so an API that never answers fails the
source in minutes at most. Google libraries are imported inside the functions, so the core never loads them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from trainledger.core.config_types import Retries, Seconds, SourceConfig, SourceOptions
from trainledger.core.errors import SourceError

TIMEOUT_S = 60.0


class GcpOptions(SourceOptions):
    """Keys of every GCP source: ``api_endpoint`` (an emulator or fake, with anonymous credentials), and
    how long a call may take."""

    api_endpoint: str | None = None
    timeout_s: Seconds = TIMEOUT_S  # per request: to connect, and for each read
    retries: Retries = 2  # after the first attempt, with backoff


T = TypeVar("T")
BACKOFF_S = 1.0  # doubled after each failed attempt
# google-cloud-core prefixes messages with the request ("POST https://...: "); the reason is what matters.
_REQUEST = re.compile(r"^[A-Z]{3,7} https?://\S+: ")


def client_kwargs(source: SourceConfig) -> dict[str, Any]:
    """``credentials`` and ``client_options`` for a google-cloud-* client of this source."""
    endpoint = source.options_as(GcpOptions).api_endpoint
    if not endpoint:
        return {}
    from google.auth.credentials import AnonymousCredentials

    return {"credentials": AnonymousCredentials(), "client_options": {"api_endpoint": endpoint}}


def bounded(source: SourceConfig, call: Callable[..., T]) -> T:
    """``call(timeout=timeout_s)`` (whole, e.g. every page of a listing), retried ``retries`` times with backoff
    when it times out or the service is busy (429, 5xx); any other failure is raised at once."""
    options = source.options_as(GcpOptions)
    for attempt in range(options.retries + 1):
        try:
            return call(timeout=options.timeout_s)
        except _transient() as exc:
            if attempt == options.retries:
                raise _Exhausted(source, exc) from None
            time.sleep(BACKOFF_S * 2**attempt)
    raise AssertionError("unreachable")


class _Exhausted(Exception):
    """Every attempt of a call failed for a transient reason; ``source_error`` says so in one line."""

    def __init__(self, source: SourceConfig, exc: Exception) -> None:
        options = source.options_as(GcpOptions)
        self.message = (
            f"no answer within {options.timeout_s:g} s, {options.retries + 1} attempt(s) (the source's "
            f"timeout_s and retries; last: {_first_line(exc)})"
        )
        super().__init__(self.message)


def _first_line(exc: Exception) -> str:
    text = str(getattr(exc, "message", None) or exc)
    return _REQUEST.sub("", " ".join(text.split()))[:200] or type(exc).__name__


def _transient() -> tuple[type[Exception], ...]:
    """Failures worth another attempt: timeouts, refused or dropped connections, 429 and 5xx answers."""
    import requests
    from google.api_core import exceptions as api

    return (
        requests.Timeout,
        requests.ConnectionError,
        ConnectionError,
        TimeoutError,
        api.TooManyRequests,
        api.ServerError,
        api.RetryError,
    )


def source_error(
    source: SourceConfig, exc: Exception, action: str, hints: Mapping[str, str] | None = None
) -> SourceError:
    """One line naming the source, what failed, Google's own message and what to do about it.

    ``hints`` maps an outcome (``permission denied``, ``not found``) to the advice added for it.
    """
    from google.api_core import exceptions as api
    from google.auth import exceptions as auth

    message = getattr(exc, "message", None) or str(exc)
    detail = _REQUEST.sub("", " ".join(str(message).split()))
    if isinstance(exc, _Exhausted):
        return SourceError(f"source {source.name!r}: {action}: {exc.message}")
    if isinstance(exc, auth.DefaultCredentialsError):
        return SourceError(
            f"source {source.name!r}: {action}: no Google credentials ({detail[:200]}); run `gcloud auth "
            "application-default login` or point GOOGLE_APPLICATION_CREDENTIALS at a key file"
        )
    if isinstance(exc, api.Forbidden | api.PermissionDenied):
        outcome = "permission denied"
    elif isinstance(exc, api.NotFound):
        outcome = "not found"
    elif isinstance(exc, api.Unauthorized | api.Unauthenticated):
        outcome = "not authenticated"
    elif isinstance(exc, api.GoogleAPICallError):
        outcome = f"failed (HTTP {exc.code})"
    else:
        outcome = f"failed ({type(exc).__name__})"
    code = getattr(exc, "code", None)
    status = f"{code}: " if isinstance(code, int) else ""
    hint = (hints or {}).get(outcome)
    tail = f"; {hint}" if hint else ""
    return SourceError(f"source {source.name!r}: {action}: {outcome} ({status}{detail}){tail}")


def api_errors() -> tuple[type[Exception], ...]:
    """The exception types a Google client raises for a failed call (HTTP, auth, transport, retries)."""
    import requests
    from google.api_core import exceptions as api
    from google.auth import exceptions as auth

    return (api.GoogleAPIError, auth.GoogleAuthError, requests.RequestException, _Exhausted)
