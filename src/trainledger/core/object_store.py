"""Record objects under an ``s3://`` or ``gs://`` prefix: list them in name order, read them, write one.

The experiment log may live in a bucket, one object per record so that jobs on many machines never
overwrite each other. boto3 and google-cloud-storage are imported inside the functions, so importing this
module costs nothing. Both clients take their credentials and endpoints from the environment as usual
(``AWS_PROFILE``, ``AWS_ENDPOINT_URL``, ``GOOGLE_APPLICATION_CREDENTIALS``, ``STORAGE_EMULATOR_HOST``).
"""

from __future__ import annotations

import os
from typing import Any

from trainledger.core.errors import InputError, SourceError

SCHEMES = ("s3://", "gs://")


def is_object_uri(uri: str) -> bool:
    return uri.startswith(SCHEMES)


def split(uri: str, suffixes: tuple[str, ...] = ()) -> tuple[str, str, str]:
    """``s3://bucket/runs`` → ``("s3", "bucket", "runs/")``: a prefix names a folder unless it names a record
    file itself (its last segment ends with one of ``suffixes``)."""
    scheme, _, rest = uri.partition("://")
    bucket, _, prefix = rest.partition("/")
    if not bucket:
        raise SourceError(f"{uri}: expected {scheme}://BUCKET/PREFIX")
    if prefix and not prefix.endswith("/") and not prefix.endswith(suffixes):
        prefix += "/"
    return scheme, bucket, prefix


def read_objects(
    uri: str, suffixes: tuple[str, ...], what: str = "the experiment log"
) -> list[tuple[str, str]]:
    """``(object uri, text)`` of every object under ``uri`` whose name ends with one of ``suffixes``,
    in object-name order (the order in which later records update earlier ones); ``what`` they are is
    named when they cannot be read."""
    scheme, bucket, prefix = split(uri, suffixes)
    reader = _read_s3 if scheme == "s3" else _read_gcs
    return reader(uri, bucket, prefix, suffixes, what)


def put_object(uri: str, name: str, body: bytes, timeout_s: float) -> str:
    """Write ``body`` as object ``name`` under the prefix ``uri``; returns the object's uri.

    Errors propagate as they are: the caller (the run logger) turns them into warnings."""
    scheme, bucket, prefix = split(uri)
    key = prefix + name
    if scheme == "s3":
        _s3_client(timeout_s).put_object(
            Bucket=bucket, Key=key, Body=body, ContentType="application/x-ndjson"
        )
    else:
        blob = _gcs_client().bucket(bucket).blob(key)
        blob.upload_from_string(body, content_type="application/x-ndjson", timeout=timeout_s)
    return f"{scheme}://{bucket}/{key}"


def _s3_client(timeout_s: float | None = None) -> Any:
    import boto3
    from botocore.config import Config as BotoConfig

    options: dict[str, Any] = {"retries": {"max_attempts": 2, "mode": "standard"}}
    if timeout_s is not None:
        options.update(connect_timeout=timeout_s, read_timeout=timeout_s)
    return boto3.session.Session().client("s3", config=BotoConfig(**options))


def _gcs_client() -> Any:
    from google.cloud import storage

    try:
        return storage.Client()
    except OSError:
        # No project in the environment: reading and writing objects by bucket name does not need one.
        return storage.Client(project=os.environ.get("GOOGLE_CLOUD_PROJECT") or "<none>")


def _read_s3(
    uri: str, bucket: str, prefix: str, suffixes: tuple[str, ...], what: str
) -> list[tuple[str, str]]:
    from botocore.exceptions import BotoCoreError, ClientError

    client = _s3_client()
    try:
        keys = [
            item["Key"]
            for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
            for item in page.get("Contents", [])
            if item["Key"].endswith(suffixes)
        ]
        out = []
        for key in sorted(keys):
            body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
            out.append((f"s3://{bucket}/{key}", _text(f"s3://{bucket}/{key}", body, what)))
        return out
    except ClientError as exc:
        error = exc.response.get("Error", {})
        raise SourceError(
            f"{uri}: cannot read {what}: {error.get('Code', 'error')}: {error.get('Message', '')}"
        ) from None
    except BotoCoreError as exc:
        raise SourceError(f"{uri}: cannot read {what}: {exc}") from None


def _read_gcs(
    uri: str, bucket: str, prefix: str, suffixes: tuple[str, ...], what: str
) -> list[tuple[str, str]]:
    from google.api_core.exceptions import GoogleAPIError
    from google.auth.exceptions import GoogleAuthError

    try:
        client = _gcs_client()
        blobs = sorted(
            (b for b in client.list_blobs(bucket, prefix=prefix) if b.name.endswith(suffixes)),
            key=lambda b: b.name,
        )
        return [
            (f"gs://{bucket}/{b.name}", _text(f"gs://{bucket}/{b.name}", b.download_as_bytes(), what))
            for b in blobs
        ]
    except (GoogleAPIError, GoogleAuthError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SourceError(f"{uri}: cannot read {what}: {first}") from None


def _text(where: str, body: bytes, what: str) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text; expected JSON ({what})") from None
