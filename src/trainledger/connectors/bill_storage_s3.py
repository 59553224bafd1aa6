"""An S3 prefix as :class:`~trainledger.connectors.bill_storage.Storage`: paged listings, streamed downloads
(or, on Spark, the objects' URIs for Spark to read in place).

Decisions about what changed are made from ListObjectsV2 metadata (keys, sizes, ETags) alone, so an ingest
of unchanged objects issues no GetObject at all. Data files are streamed to ``<cache>/<key>`` in chunks
(never a whole month in memory), a few at a time, each written to a temporary name and renamed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from trainledger.connectors.aws_session import AwsContext
from trainledger.connectors.bill_storage import Entry, ObjectUri, safe_key
from trainledger.core.errors import SourceError

CHUNK = 1 << 20
PARALLEL_DOWNLOADS = 8


def split_uri(uri: str) -> tuple[str, str]:
    """``s3://bucket/some/prefix`` → ``("bucket", "some/prefix/")`` (prefix empty for the bucket root)."""
    rest = uri.removeprefix("s3://")
    bucket, _, prefix = rest.partition("/")
    if not bucket:
        raise SourceError(f"{uri}: expected s3://bucket/prefix")
    prefix = prefix.strip("/")
    return bucket, f"{prefix}/" if prefix else ""


class S3Storage:
    def __init__(self, aws: AwsContext, uri: str, cache_dir: Path) -> None:
        self.aws = aws
        self.bucket, self.prefix = split_uri(uri)
        self.cache_dir = cache_dir
        self._client: Any = None
        self._entries: list[Entry] | None = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.aws.client("s3")
        return self._client

    def describe(self, key: str = "") -> str:
        return f"s3://{self.bucket}/{self.prefix}{key}"

    def entries(self) -> list[Entry]:
        if self._entries is None:
            found = []
            try:
                pages = self.client.get_paginator("list_objects_v2").paginate(
                    Bucket=self.bucket, Prefix=self.prefix
                )
                for page in pages:
                    for obj in page.get("Contents", []):
                        key = obj["Key"][len(self.prefix) :]
                        if key and not key.endswith("/"):
                            found.append(Entry(key, int(obj["Size"]), str(obj.get("ETag", "")).strip('"')))
            except Exception as exc:
                raise self.aws.error(exc, f"list {self.describe()}") from None
            if not found:
                raise SourceError(
                    f"source {self.aws.source.name!r}: no objects under {self.describe()}; check the bucket and prefix"
                )
            self._entries = found
        return self._entries

    def read_text(self, key: str) -> str:
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"]
            return str(body.read().decode("utf-8"))
        except Exception as exc:
            raise self.aws.error(exc, f"read {self.describe(key)}") from None

    def _download(self, key: str) -> Path:
        target = self.cache_dir / safe_key(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"]
            with partial.open("wb") as out:
                for chunk in body.iter_chunks(CHUNK):
                    out.write(chunk)
        except Exception as exc:
            partial.unlink(missing_ok=True)
            raise self.aws.error(exc, f"download {self.describe(key)}") from None
        os.replace(partial, target)
        return target

    def local_paths(self, keys: Sequence[str], scope: str | None = None) -> list[Path]:
        with ThreadPoolExecutor(max_workers=PARALLEL_DOWNLOADS) as pool:
            paths = list(pool.map(self._download, keys))
        if scope:  # earlier deliveries of this period (old assemblies, old executions) are dead weight
            keep = set(paths)
            folder = self.cache_dir / safe_key(scope.rstrip("/"))
            for cached in folder.rglob("*") if folder.is_dir() else []:
                if cached.is_file() and cached not in keep:
                    cached.unlink()
        return paths

    def display_names(self, keys: Sequence[str]) -> dict[str, str] | None:
        return {str(self.cache_dir / k): self.describe(k) for k in keys}

    def in_place(self, keys: Sequence[str], scheme: str) -> tuple[list[ObjectUri], dict[str, str]]:
        """The objects as Spark reads them where they are (``<scheme>://bucket/key``, nothing downloaded),
        and how to name them: as ``s3://`` URIs, as the download's cache paths are named."""
        uris = [ObjectUri(f"{scheme}://{self.bucket}/{self.prefix}{safe_key(k)}") for k in keys]
        return uris, {uri: self.describe(k) for uri, k in zip(uris, keys, strict=True)}
