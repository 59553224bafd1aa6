"""Reading one of Google's export tables from the files BigQuery exports it as: parquet or JSON Lines, in a
local file or folder, or under ``gs://bucket/prefix`` (mirrored into the source's cache first; on Spark read
where they are, by the cluster's GCS filesystem).

What is not such a file (a CSV, a JSON array, a gzip of something else) is named with what it is, before
DuckDB reads anything.
"""

from __future__ import annotations

import gzip
import os
from functools import partial
from pathlib import Path

import duckdb

from trainledger.connectors import gcp_api, spark_files, staging
from trainledger.connectors.bill_storage import BillFile, ObjectUri
from trainledger.connectors.gcp_flat import RAW_VIEW
from trainledger.connectors.source_files import default_cache_dir, files_under
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import InputError, SourceError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection, on_spark

FILE_SUFFIXES = staging.SUFFIXES["parquet"] + staging.SUFFIXES["json"]


def bucket_files(
    source: SourceConfig,
    config: Config,
    uri: str,
    project: str | None,
    cache_dir: str | None,
    reporter: Reporter,
    *,
    in_place: bool,
) -> list[BillFile]:
    """The export files under ``gs://bucket/prefix``, listed with the Storage client (``project`` is the
    client's project). ``in_place`` (Spark): their ``gs://bucket/name``, read by the cluster's GCS
    filesystem, nothing downloaded. Otherwise mirrored into the cache (the source's ``cache_dir``),
    unchanged objects kept: an object is unchanged when the cached copy has its size and its update time
    (set as mtime).
    """
    import google.cloud.storage as storage

    bucket_name, _, prefix = uri[len("gs://") :].partition("/")
    root = default_cache_dir(source, config, cache_dir) / bucket_name
    files: list[BillFile] = []
    try:
        client = storage.Client(project=project, **gcp_api.client_kwargs(source))
        blobs = gcp_api.bounded(
            source,
            lambda timeout: list(client.list_blobs(bucket_name, prefix=prefix, timeout=timeout, retry=None)),
        )
        for blob in blobs:
            if not blob.name.endswith(FILE_SUFFIXES):
                continue
            if in_place:
                files.append(ObjectUri(f"gs://{bucket_name}/{blob.name}"))
                continue
            local = root / blob.name
            files.append(local)
            stamp = blob.updated.timestamp() if blob.updated else None
            if local.is_file() and local.stat().st_size == blob.size and local.stat().st_mtime == stamp:
                continue
            local.parent.mkdir(parents=True, exist_ok=True)
            gcp_api.bounded(
                source,
                partial(blob.download_to_filename, str(local), retry=None),
            )
            if stamp is not None:
                os.utime(local, (stamp, stamp))
            reporter.detail(f"{source.name}: downloaded gs://{bucket_name}/{blob.name}")
    except gcp_api.api_errors() as exc:
        hints = {"permission denied": "the caller needs roles/storage.objectViewer on the bucket"}
        raise gcp_api.source_error(source, exc, f"reading {uri}", hints) from None
    if not files:
        raise SourceError(f"source {source.name!r}: no parquet or JSON export files under {uri}")
    return sorted(files, key=lambda f: Path(f).parts)  # as paths sort


def export_files(root: Path) -> list[Path]:
    return files_under(root, FILE_SUFFIXES, f"Cloud Billing export files ({', '.join(FILE_SUFFIXES)})")


def _not_an_export_file(path: BillFile) -> str | None:
    """What a file given as an export really is, when its name or first bytes say it is not one. An object
    read in place by Spark was listed by its name (``bucket_files``); Spark's reader names what else is
    wrong with it."""
    if isinstance(path, ObjectUri):
        return None
    if not path.name.endswith(FILE_SUFFIXES):
        kind = (
            "a CSV file" if path.name.lower().endswith(staging.SUFFIXES["csv"]) else staging.looks_like(path)
        )
        return f"{kind}, not parquet or JSON Lines"
    if path.name.endswith(".parquet"):
        return None
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
            start = handle.read(4096).lstrip()
    except (OSError, EOFError):
        return None  # DuckDB's reading names the damage
    if start.startswith("["):
        return "a JSON array, not JSON Lines (one export row per line)"
    if start and not start.startswith("{"):
        return f"not JSON Lines (it starts {start[:20]!r})"
    return None


def read_files(con: Connection, files: list[BillFile]) -> None:
    """The raw view over parquet or JSON Lines files, as BigQuery's EXPORT DATA / extract writes them."""
    names = [str(f) for f in files]
    for f in files:
        problem = _not_an_export_file(f)
        if problem:
            raise InputError(
                f"{f}: {problem}; expected the export's rows as parquet or JSON Lines ({', '.join(FILE_SUFFIXES)})"
            )
    found = staging.formats(files)
    if "parquet" in found and len(found) > 1:
        raise InputError(
            f"{files[0].parent}: mixes parquet and JSON export files; keep one format per source"
        )
    if found != {"parquet"} and (spark := on_spark(con)):
        spark_files.read_json_lines(spark, RAW_VIEW, names, "a Cloud Billing export")
        return
    try:
        if found == {"parquet"}:
            staging.read_parquet(con, RAW_VIEW, files)  # on Spark, read by Spark
            return
        rel = con.read_json(
            names, format="newline_delimited", union_by_name=True, filename=True, sample_size=-1
        )
    except duckdb.Error as exc:
        raise InputError(
            f"{files[0]}: cannot read as a Cloud Billing export: {str(exc).splitlines()[0]}"
        ) from None
    staging.create_raw_view(con, f"{RAW_VIEW}_json", rel)
    staging.number_rows(con, f"{RAW_VIEW}_json", RAW_VIEW)
