"""A source's ``uri`` opened as :class:`~trainledger.connectors.storage.Storage`: an S3 prefix or a local folder.

Kept apart from the interface so that ``storage`` (the interface and the local folder) and ``s3`` (the S3
implementation) do not import each other.
"""

from __future__ import annotations

from pathlib import Path

from trainledger.connectors.storage import LocalStorage, Storage
from trainledger.core.config import Config, SourceConfig
from trainledger.core.errors import SourceError


def default_cache_dir(source: SourceConfig, config: Config) -> Path:
    """``cache_dir`` from the config, else ``<warehouse folder>/cache/<source name>``."""
    if source.cache_dir:
        return Path(config.resolve(source.cache_dir))
    return config.warehouse_path().parent / "cache" / source.name


def open_storage(source: SourceConfig, config: Config) -> Storage:
    """The storage behind a source's ``uri``: ``s3://bucket/prefix`` or a local folder."""
    if not source.uri:
        raise SourceError(f"source {source.name!r}: `uri` is required for kind {source.kind}")
    if source.uri.startswith("s3://"):
        from trainledger.connectors.aws_session import AwsContext
        from trainledger.connectors.s3 import S3Storage

        return S3Storage(AwsContext(source), source.uri, default_cache_dir(source, config))
    if "://" in source.uri:
        raise SourceError(
            f"source {source.name!r}: kind {source.kind} reads s3:// or a local folder, not {source.uri}"
        )
    root = Path(config.resolve(source.uri))
    if not root.exists():
        raise SourceError(f"source {source.name!r}: {root} does not exist")
    return LocalStorage(root)
