"""boto3 sessions for a source: the standard credential chain, or ``profile``, then ``role_arn``.

``role_arn`` is assumed with STS (the usual way into a payer account). ``endpoint_url`` is passed to every
client of the source (S3-compatible stores, local fakes); without it boto3 applies its own
``AWS_ENDPOINT_URL`` / ``AWS_ENDPOINT_URL_<SERVICE>`` environment variables, as it always does.
Every request waits at most ``timeout_s`` to connect and for each read, and is retried ``retries`` times
with botocore's backoff, so an endpoint that never answers fails the source in minutes at most.
AWS failures become one-line :class:`SourceError` messages naming what was asked and by whom.
"""

from __future__ import annotations

from typing import Any

from trainledger.core.config_types import Retries, Seconds, SourceConfig, SourceOptions
from trainledger.core.errors import SourceError


class AwsOptions(SourceOptions):
    """Keys of every AWS source: whose credentials, which region, which endpoint."""

    profile: str | None = None
    role_arn: str | None = None
    region: str | None = None
    endpoint_url: str | None = None
    timeout_s: Seconds = 60.0  # per request: to connect, and for each read
    retries: Retries = 2  # after the first attempt, with backoff


EXAMPLE_OPTIONS = (
    'profile = "payer"                 # a ~/.aws/config profile (default: the standard chain)',
    'role_arn = "arn:aws:iam::111122223333:role/trainledger-read"',
    'region = "us-east-1"',
)


_DENIED = {
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "UnauthorizedException",
    "Forbidden",
    "403",
}
_BAD_CREDENTIALS = {
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "ExpiredToken",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "AuthFailure",
}


class AwsContext:
    """One source's AWS session, created on first use, and the translation of AWS errors."""

    def __init__(self, source: SourceConfig) -> None:
        self.source = source
        self.options = source.options_as(AwsOptions)
        self._session: Any = None

    def session(self) -> Any:
        if self._session is None:
            import boto3
            import botocore.exceptions

            try:
                base = boto3.Session(profile_name=self.options.profile, region_name=self.options.region)
                if self.options.role_arn:
                    sts = base.client("sts", endpoint_url=self.options.endpoint_url, config=self._config())
                    creds = sts.assume_role(RoleArn=self.options.role_arn, RoleSessionName="trainledger")[
                        "Credentials"
                    ]
                    base = boto3.Session(
                        aws_access_key_id=creds["AccessKeyId"],
                        aws_secret_access_key=creds["SecretAccessKey"],
                        aws_session_token=creds["SessionToken"],
                        region_name=base.region_name,
                    )
            except botocore.exceptions.ProfileNotFound:
                raise SourceError(
                    f"source {self.source.name!r}: AWS profile {self.options.profile!r} is not in ~/.aws/config"
                ) from None
            except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as exc:
                what = (
                    f"assume role {self.options.role_arn}" if self.options.role_arn else "open an AWS session"
                )
                raise self.error(exc, what, identity=False) from None
            self._session = base
        return self._session

    def _config(self) -> Any:
        from botocore.config import Config

        return Config(
            connect_timeout=self.options.timeout_s,
            read_timeout=self.options.timeout_s,
            retries={"total_max_attempts": self.options.retries + 1, "mode": "standard"},
            max_pool_connections=16,
        )

    def client(self, service: str, region: str | None = None) -> Any:
        session = self.session()
        return session.client(
            service,
            region_name=region or session.region_name or "us-east-1",
            endpoint_url=self.options.endpoint_url,
            config=self._config(),
        )

    def identity(self) -> str:
        """The caller's ARN (STS GetCallerIdentity), or a placeholder when even that is refused."""
        try:
            return str(self.client("sts").get_caller_identity()["Arn"])
        except Exception:  # any failure here must not hide the error being reported
            return "an identity STS would not name"

    def error(self, exc: Exception, what: str, *, identity: bool = True) -> SourceError:
        """One line: the source, what was asked, and why AWS said no."""
        import botocore.exceptions

        prefix = f"source {self.source.name!r}: cannot {what}"
        if isinstance(exc, botocore.exceptions.ClientError):
            error = exc.response.get("Error", {})
            code = str(error.get("Code", "")) or "unknown"
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if code in _DENIED or (status == 403 and code not in _BAD_CREDENTIALS):
                who = self.identity() if identity else "the configured credentials"
                return SourceError(f"{prefix}: access denied for {who} ({code}); check its IAM policy")
            if code == "NoSuchBucket":
                bucket = error.get("BucketName") or "the bucket"
                return SourceError(f"{prefix}: bucket {bucket} does not exist")
            if code in ("NoSuchKey", "404"):
                return SourceError(f"{prefix}: the object does not exist")
            if code in _BAD_CREDENTIALS:
                return SourceError(f"{prefix}: AWS rejected the credentials ({code})")
            message = str(error.get("Message", "")).splitlines()[0] if error.get("Message") else ""
            return SourceError(f"{prefix}: AWS error {code}" + (f": {message}" if message else ""))
        if isinstance(exc, botocore.exceptions.NoCredentialsError):
            return SourceError(
                f"{prefix}: no AWS credentials found (environment, ~/.aws, instance role); set `profile` or "
                "configure the standard chain"
            )
        if isinstance(exc, botocore.exceptions.ReadTimeoutError | botocore.exceptions.ConnectTimeoutError):
            attempts = self.options.retries + 1
            return SourceError(
                f"{prefix}: no answer within {self.options.timeout_s:g} s, {attempts} attempt(s) "
                "(the source's timeout_s and retries)"
            )
        if isinstance(exc, botocore.exceptions.EndpointConnectionError):
            return SourceError(f"{prefix}: cannot reach {exc.kwargs.get('endpoint_url', 'the endpoint')}")
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return SourceError(f"{prefix}: {text}")
