"""Bills in a bucket read by Spark in place (`engine = "spark"`, an `s3://` uri): the driver lists the objects
and reads the manifests (boto3, moto as a real server); Spark is handed `s3a://bucket/key` and reads the data
files itself, none downloaded. CUR 2.0 parquet, legacy CUR csv.gz and an AWS FOCUS export give the charges
DuckDB gives from the same bucket (where they are downloaded to the cache first); a bad row is named by its
`s3://` object.

No S3 filesystem for Hadoop here (hadoop-aws comes from Maven, out of reach): the `s3a` scheme is served by
Hadoop's own ViewFileSystemOverloadScheme (in the hadoop-client jars pyspark ships), whose mount table sends
`s3a://<bucket>/...` to a local folder holding the very files uploaded to the bucket. So Spark reads through
Hadoop's FileSystem API with the URIs trainledger gives, as it would through S3A; S3A itself is not run.

Skipped where Java or pyspark is missing.
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

import generate
from aws_fakes import FakeAws
from conftest import Project
from spark_checks import (
    ON_SPARK_WORKER,
    SPARK,
    bucket_scheme_on_local_folders,
    cli_in,
    committed,
    duckdb_charges,
    require_spark,
    spark_charges,
)

pytestmark = [pytest.mark.slow, ON_SPARK_WORKER]

require_spark()

MONTH_BILLED = Decimal("67353.05311856")  # the generated month's total (tests/test_aws_s3.py)
EXPORTS = {
    "cur2": ("aws-cur2", "cur/ml-cur2"),
    "legacy": ("aws-cur", "cur/ml-cur"),
    "focus": ("aws-focus", "focus/ml-focus"),
}


@pytest.fixture
def mount_s3a() -> Iterator[Callable[[str, Path], None]]:
    with bucket_scheme_on_local_folders("s3a") as mount:
        yield mount


def test_bills_in_a_bucket_are_read_by_spark_in_place(
    tmp_path: Path, fake_aws: FakeAws, demo_files: Path, mount_s3a: Callable[[str, Path], None]
) -> None:
    local = tmp_path / "bucket"
    shutil.copytree(demo_files / "aws", local)
    generate.write_cur_legacy_month(local)
    generate.write_aws_focus_month(local)
    bucket = fake_aws.bucket()
    fake_aws.upload(bucket, local)
    mount_s3a(bucket, local)
    sources = "".join(
        f'[[sources]]\nname = "{name}"\nkind = "{kind}"\nuri = "s3://{bucket}/{prefix}"\n'
        f'endpoint_url = "{fake_aws.endpoint}"\n'
        for name, (kind, prefix) in EXPORTS.items()
    )
    found, fetched = {}, {}
    for engine in ("duckdb", "spark"):
        project = Project(tmp_path / engine)
        project.root.mkdir()
        project.write_config(
            '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
            + (SPARK if engine == "spark" else "")
            + sources
        )
        fake_aws.get_objects.clear()
        result = cli_in(project.root)("ingest")
        assert result.exit_code == 0, result.stderr
        found[engine], fetched[engine] = project, sorted(fake_aws.get_objects)
    data = [k for k in fetched["duckdb"] if not k.endswith("Manifest.json")]
    assert len(data) == 4  # DuckDB: the CUR 2.0 and FOCUS files and the legacy assembly's two chunks
    assert fetched["spark"] == [k for k in fetched["duckdb"] if k.endswith("Manifest.json")]  # manifests only
    cached = [p for p in (found["spark"].root / ".trainledger" / "cache").rglob("*") if p.is_file()]
    assert not [p for p in cached if p.name.endswith((".parquet", ".gz"))]  # nothing downloaded

    assert spark_charges(found["spark"]) == duckdb_charges(found["duckdb"])
    with duckdb.connect() as con:
        by_source = con.execute(
            "SELECT source, count(*), sum(billed_cost) FROM read_parquet(?) GROUP BY 1 ORDER BY 1",
            [str(committed(found["spark"], "charges") / "*.parquet")],
        ).fetchall()
    assert by_source == [(name, 2269, MONTH_BILLED) for name in sorted(EXPORTS)]
    with duckdb.connect(str(found["spark"].warehouse), read_only=True) as con:
        files = sorted(f for (f,) in con.execute("SELECT file FROM charge_files").fetchall())
    assert files and all(f.startswith(f"s3://{bucket}/") for f in files)  # named where the user can look


def test_a_bad_row_of_a_file_read_in_place_is_named_where_the_user_can_look(
    tmp_path: Path, fake_aws: FakeAws, mount_s3a: Callable[[str, Path], None]
) -> None:
    """A legacy CUR chunk with a cost written with a decimal comma: one line naming the object as
    `s3://bucket/key`, the row (1-based, among the file's data rows, as test_spark_ingest.py's bad row on
    both engines) and the column; nothing committed."""
    local = tmp_path / "bucket"
    generate.write_cur_legacy_month(local)
    report = local / "cur" / "ml-cur" / "20261101-20261201"
    manifest = json.loads((report / "ml-cur-Manifest.json").read_text(encoding="utf-8"))
    key = manifest["reportKeys"][0]  # the first chunk of the assembly the top-level manifest names
    with gzip.open(local / key, "rt", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows[700][rows[0].index("lineItem/UnblendedCost")] = "12,5"
    with gzip.open(local / key, "wt", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    bucket = fake_aws.bucket()
    fake_aws.upload(bucket, local)
    mount_s3a(bucket, local)
    project = Project(tmp_path / "p")
    project.root.mkdir()
    project.write_config(
        '[warehouse]\npath = ".trainledger/ledger.duckdb"\n' + SPARK + '[[sources]]\nname = "cur"\n'
        f'kind = "aws-cur"\nuri = "s3://{bucket}/cur/ml-cur"\nendpoint_url = "{fake_aws.endpoint}"\n'
    )
    result = cli_in(project.root)("ingest")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"trainledger: error: s3://{bucket}/{key}, row 700, column line_item_unblended_cost: "
        "expected a finite number, got '12,5'"
    )
    assert not (project.root / ".trainledger" / "spark" / "CURRENT.json").exists()  # nothing committed
