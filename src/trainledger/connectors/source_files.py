"""A source's ``uri`` opened as :class:`~trainledger.connectors.bill_storage.Storage`: an S3 prefix or a local folder.

Kept apart from the interface so that ``storage`` (the interface and the local folder) and ``s3`` (the S3
implementation) do not import each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from trainledger.connectors.aws_session import AwsOptions
from trainledger.connectors.bill_storage import BillFile, ContentHashes, LocalStorage, Storage
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig, SourceOptions
from trainledger.core.errors import SourceError
from trainledger.warehouse.connection import Connection, on_spark


class AwsFiles(AwsOptions):
    """Keys of a bill read from files: ``uri`` (s3:// or a local folder) and where S3 objects are cached."""

    uri: str | None = None
    cache_dir: str | None = None


class LocalFiles(SourceOptions):
    """Keys of a bill read from a local file or folder."""

    uri: str | None = None


def default_cache_dir(source: SourceConfig, config: Config, cache_dir: str | None) -> Path:
    """``cache_dir`` from the config, else ``<warehouse folder>/cache/<source name>``."""
    if cache_dir:
        return Path(config.resolve(cache_dir))
    return config.warehouse_path().parent / "cache" / source.name


def required_uri(source: SourceConfig, uri: str | None) -> str:
    if not uri:
        raise SourceError(f"source {source.name!r}: `uri` is required for kind {source.kind}")
    return uri


def local_path(
    source: SourceConfig, config: Config, uri: str, *, remote: str, what: str = "", file: bool = False
) -> Path:
    """The local file or folder a ``uri`` names; ``remote`` says what to use instead of another scheme."""
    if "://" in uri:
        raise SourceError(f"source {source.name!r}: {remote}")
    path = Path(config.resolve(uri))
    if not (path.is_file() if file else path.exists()):
        raise SourceError(f"source {source.name!r}: {what}{path} does not exist")
    return path


def files_under(root: Path, suffixes: tuple[str, ...], what: str) -> list[Path]:
    """``root`` when it is a file, else the files below it whose names end in ``suffixes``, sorted; none is
    an error saying ``what`` was looked for."""
    if root.is_file():
        return [root]
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(suffixes))
    if not files:
        raise SourceError(f"{root}: no {what} found")
    return files


def open_storage(source: SourceConfig, config: Config) -> Storage:
    """The storage behind a source's ``uri``: ``s3://bucket/prefix`` or a local folder."""
    options = source.options_as(AwsFiles)
    uri = required_uri(source, options.uri)
    if uri.startswith("s3://"):
        from trainledger.connectors.aws_session import AwsContext
        from trainledger.connectors.bill_storage_s3 import S3Storage

        return S3Storage(AwsContext(source), uri, default_cache_dir(source, config, options.cache_dir))
    remote = f"kind {source.kind} reads s3:// or a local folder, not {uri}"
    return LocalStorage(local_path(source, config, uri, remote=remote), content_hashes(source, config))


def data_files(
    con: Connection, storage: Storage, keys: Sequence[str], scope: str | None, config: Config
) -> tuple[list[BillFile], dict[str, str] | None]:
    """A delivery's data files as its scan reads them, and how charges and errors name them. On Spark, S3
    objects are read in place by the cluster's S3 filesystem (``[warehouse] s3_scheme``): the driver only
    lists them and reads manifests. Otherwise they are local files (S3 objects streamed to the cache first;
    ``scope``: the period's cache folder, see ``Storage.local_paths``)."""
    from trainledger.connectors.bill_storage_s3 import S3Storage

    if on_spark(con) and isinstance(storage, S3Storage):
        uris, names = storage.in_place(keys, config.warehouse.s3_scheme)
        return list(uris), names
    return list(storage.local_paths(keys, scope=scope)), storage.display_names(keys)


def content_hashes(source: SourceConfig, config: Config) -> ContentHashes:
    """The content hashes of a source's local files, kept in its cache folder between runs."""
    return ContentHashes(default_cache_dir(source, config, None) / "content-hashes.json")
