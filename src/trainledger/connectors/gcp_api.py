"""What every GCP connector shares: client construction and one-line errors from Google API failures.

With ``api_endpoint`` set (a local fake, an emulator, a private endpoint) the clients talk to it with
anonymous credentials; otherwise they use Application Default Credentials, as gcloud does. Google
libraries are imported inside the functions, so the core never loads them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from trainledger.core.config import SourceConfig, SourceOptions
from trainledger.core.errors import SourceError


class GcpOptions(SourceOptions):
    """Keys of every GCP source: ``api_endpoint`` (an emulator or fake, with anonymous credentials)."""

    api_endpoint: str | None = None


TIMEOUT_S = 60.0
# google-cloud-core prefixes messages with the request ("POST https://...: "); the reason is what matters.
_REQUEST = re.compile(r"^[A-Z]{3,7} https?://\S+: ")


def client_kwargs(source: SourceConfig) -> dict[str, Any]:
    """``credentials`` and ``client_options`` for a google-cloud-* client of this source."""
    endpoint = source.options_as(GcpOptions).api_endpoint
    if not endpoint:
        return {}
    from google.auth.credentials import AnonymousCredentials

    return {"credentials": AnonymousCredentials(), "client_options": {"api_endpoint": endpoint}}


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

    return (api.GoogleAPIError, auth.GoogleAuthError, requests.RequestException)
