"""Google's export files in a bucket read by Spark in place (`engine = "spark"`, a `gs://` uri of gcp-billing):
the driver lists the blobs with the Storage client (gcp-storage-emulator as a real server) and hands Spark
`gs://bucket/name`; no blob is downloaded, and the charges are DuckDB's from the same bucket (where the blobs
are downloaded to the cache first).

No GCS filesystem for Hadoop here (gcs-connector comes from Maven, out of reach): the `gs` scheme is served
by Hadoop's own ViewFileSystemOverloadScheme (in the hadoop-client jars pyspark ships), whose mount table sends
`gs://<bucket>/...` to a local folder holding the very files uploaded to the bucket, as tests/test_spark_bucket.py
does for `s3a`. So Spark reads through Hadoop's FileSystem API with the URIs trainledger gives; the GCS
connector itself is not run.

Skipped where Java or pyspark is missing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

import generate_gcp
from conftest import Project
from gcp_fakes import storage_emulator
from spark_checks import (
    ON_SPARK_WORKER,
    SPARK,
    bucket_scheme_on_local_folders,
    cli_in,
    duckdb_charges,
    require_spark,
    spark_charges,
)

pytestmark = [pytest.mark.slow, ON_SPARK_WORKER]

require_spark()

BUCKET = "ml-billing-exports"
PREFIX = "gcp/november"


@pytest.fixture
def gs_mounted_on(tmp_path: Path) -> Iterator[Path]:
    """A local folder that ``gs://<BUCKET>/`` reads from."""
    folder = tmp_path / "bucket"
    folder.mkdir()
    with bucket_scheme_on_local_folders("gs") as mount:
        mount(BUCKET, folder)
        yield folder


def test_a_gs_export_is_read_by_spark_in_place(
    tmp_path: Path, gs_mounted_on: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import google.cloud.storage as storage

    generate_gcp.main(["--out", str(tmp_path / "generated")])
    exported = sorted((tmp_path / "generated" / "gcp" / "billing" / "jsonl").glob("*.json"))
    caplog.set_level(logging.INFO, logger="gcp_storage_emulator.server")  # the emulator logs each request
    with storage_emulator() as host:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", host)
        bucket = storage.Client(project="ml-billing").create_bucket(BUCKET)
        (gs_mounted_on / PREFIX).mkdir(parents=True)
        for path in exported:
            bucket.blob(f"{PREFIX}/{path.name}").upload_from_filename(str(path))
            (gs_mounted_on / PREFIX / path.name).write_bytes(path.read_bytes())
        found, downloads = {}, {}
        for engine in ("duckdb", "spark"):
            project = Project(tmp_path / engine)
            project.root.mkdir()
            project.write_config(
                '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
                + (SPARK if engine == "spark" else "")
                + f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "gs://{BUCKET}/{PREFIX}"\n'
            )
            caplog.clear()
            result = cli_in(project.root)("ingest")
            assert result.exit_code == 0, result.stderr
            found[engine] = project
            downloads[engine] = [r.getMessage() for r in caplog.records if "alt=media" in r.getMessage()]

    assert len(downloads["duckdb"]) == len(exported) == 2  # DuckDB reads the blobs from the cache
    assert downloads["spark"] == []  # Spark: listed only
    cached = [p for p in (found["spark"].root / ".trainledger").rglob("*.json") if PREFIX in p.as_posix()]
    assert cached == []

    charges = spark_charges(found["spark"])
    assert charges == duckdb_charges(found["duckdb"])
    records = [json.loads(line) for path in exported for line in path.read_text("utf-8").splitlines() if line]
    assert len(charges) == len(records) == 400  # every exported record, read by the json module
    billed = sum(  # a row's billed cost is its cost plus its credits (each FLOAT's shortest text)
        (Decimal(repr(r["cost"])) + sum((Decimal(repr(c["amount"])) for c in r["credits"]), Decimal(0)))
        for r in records
    )
    with duckdb.connect(str(found["spark"].warehouse), read_only=True) as con:
        files = sorted(f for (f,) in con.execute("SELECT file FROM charge_files").fetchall())
        state = con.execute("SELECT sum(billed_total) FROM ingest_state").fetchone()
    assert files == [f"gs://{BUCKET}/{PREFIX}/{p.name}" for p in exported]  # named where the user can look
    assert state == (billed,)
