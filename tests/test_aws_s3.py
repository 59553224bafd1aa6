"""CUR 2.0, legacy CUR and FOCUS exports read from S3 (moto as a real server), as a payer account delivers them."""

from __future__ import annotations

import gzip
import json
from decimal import Decimal
from pathlib import Path

import duckdb

import generate
from aws_fakes import FakeAws
from conftest import Project

MONTH_BILLED = Decimal("67353.05311856")


def source(name: str, kind: str, uri: str, endpoint: str | None = None, **extra: str) -> str:
    lines = ["[[sources]]", f'name = "{name}"', f'kind = "{kind}"', f'uri = "{uri}"']
    if endpoint:
        lines.append(f'endpoint_url = "{endpoint}"')
    lines += [f'{key} = "{value}"' for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def assert_ok(result) -> None:
    assert result.exit_code in (0, 2), result.stderr


def charges(project: Project, source_name: str) -> list[tuple]:
    """The charges of one source without the columns that name where the file was read."""
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute(
            """
            SELECT * EXCLUDE (source) FROM charges WHERE source = $s ORDER BY charge_id
            """,
            {"s": source_name},
        ).fetchall()
    finally:
        con.close()


def totals(project: Project, source_name: str) -> tuple:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute(
            "SELECT count(*), sum(billed_cost), sum(effective_cost) FROM charges WHERE source = $s",
            {"s": source_name},
        ).fetchone()
    finally:
        con.close()


def test_cur2_from_s3_gives_the_same_charges_as_the_local_copy(
    run, project: Project, fake_aws: FakeAws, demo_files: Path
) -> None:
    bucket = fake_aws.bucket()
    fake_aws.upload(bucket, demo_files / "aws")
    project.write_config(
        source("cur", "aws-cur2", f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint)
        + "[warehouse]\npath = 'other.duckdb'\n"
    )
    assert_ok(run("ingest"))
    from_s3 = duckdb.connect(str(project.root / "other.duckdb"), read_only=True)
    rows_s3 = from_s3.execute("SELECT * FROM charges ORDER BY charge_id").fetchall()
    files = {r[0] for r in from_s3.execute("SELECT file FROM charge_files").fetchall()}
    from_s3.close()

    project.write_config(source("cur", "aws-cur2", str(demo_files / "aws/cur/ml-cur2")))
    assert_ok(run("ingest"))
    local = duckdb.connect(str(project.warehouse), read_only=True)
    rows_local = local.execute("SELECT * FROM charges ORDER BY charge_id").fetchall()
    local.close()

    assert len(rows_s3) == 2269
    assert rows_s3 == rows_local
    assert files == {f"s3://{bucket}/cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet"}
    cached = project.root / "cache/cur/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet"
    assert cached.is_file()


def test_a_second_ingest_of_unchanged_objects_fetches_nothing(
    run, project: Project, fake_aws: FakeAws, demo_files: Path
) -> None:
    bucket = fake_aws.bucket()
    fake_aws.upload(bucket, demo_files / "aws")
    project.write_config(source("cur", "aws-cur2", f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint))

    first = run("ingest")
    assert first.exit_code == 0, first.stderr
    assert sorted(fake_aws.get_objects) == [
        "cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet",
        "cur/ml-cur2/metadata/BILLING_PERIOD=2026-11/ml-cur2-Manifest.json",
    ]
    fake_aws.get_objects.clear()

    second = run("ingest")
    assert second.exit_code == 0, second.stderr
    assert fake_aws.get_objects == []
    assert totals(project, "cur") == (2269, MONTH_BILLED, MONTH_BILLED)


def test_a_rewritten_period_is_read_again(run, project: Project, fake_aws: FakeAws, tmp_path: Path) -> None:
    """AWS rewrites a closed period for late credits: a new manifest ETag means the period is replaced."""
    bucket = fake_aws.bucket()
    generate.write_cur2_month(tmp_path / "v1", prefix="cur", export_name="ml-cur2", fmt="csv.gz")
    fake_aws.upload(bucket, tmp_path / "v1")
    project.write_config(source("cur", "aws-cur2", f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint))
    assert_ok(run("ingest"))
    assert totals(project, "cur") == (2269, MONTH_BILLED, MONTH_BILLED)

    manifest_key = "cur/ml-cur2/metadata/BILLING_PERIOD=2026-11/ml-cur2-Manifest.json"
    manifest = json.loads(fake_aws.s3.get_object(Bucket=bucket, Key=manifest_key)["Body"].read())
    manifest["executionId"] = "second-execution"
    data_key = "cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.csv.gz"
    text = gzip.decompress(fake_aws.s3.get_object(Bucket=bucket, Key=data_key)["Body"].read()).decode()
    header, first_row = text.splitlines()[:2]
    fake_aws.s3.put_object(
        Bucket=bucket, Key=data_key, Body=gzip.compress(f"{header}\n{first_row}\n".encode())
    )
    fake_aws.s3.put_object(Bucket=bucket, Key=manifest_key, Body=json.dumps(manifest).encode())
    fake_aws.get_objects.clear()

    assert_ok(run("ingest"))
    assert len(fake_aws.get_objects) == 2
    assert totals(project, "cur")[0] == 1


def test_the_newest_legacy_assembly_replaces_the_month(
    run, project: Project, fake_aws: FakeAws, tmp_path: Path
) -> None:
    bucket = fake_aws.bucket()
    project.write_config(source("legacy", "aws-cur", f"s3://{bucket}/cur/ml-cur", fake_aws.endpoint))

    generate.write_cur_legacy_delivery(tmp_path / "d1", 1)
    fake_aws.upload(bucket, tmp_path / "d1")
    assert_ok(run("ingest"))
    # Delivered on the 20th: usage to date, no tax, no credit yet.
    count, billed, _ = totals(project, "legacy")
    assert count == 1684
    assert billed == Decimal("40962.76746679")

    generate.write_cur_legacy_delivery(tmp_path / "d2", 2)
    fake_aws.upload(bucket, tmp_path / "d2")  # the new assembly, and the top-level manifest overwritten
    assert_ok(run("ingest"))
    assert totals(project, "legacy") == (2269, MONTH_BILLED, MONTH_BILLED)
    cached = sorted(p.name for p in (project.root / ".trainledger/cache/legacy").rglob("*") if p.is_file())
    assert cached == ["ml-cur-1.csv.gz", "ml-cur-2.csv.gz"]  # the first assembly's copies are gone


def test_legacy_cur_and_cur2_of_the_same_usage_give_identical_allocations(
    run, project: Project, demo_files: Path, tmp_path: Path
) -> None:
    """Same usage in two formats: every allocation row matches, charge by charge (line item id and hour)."""
    experiments = f'[experiments]\nuri = "{demo_files / "experiments.jsonl"}"\n'
    generate.write_cur_legacy_month(tmp_path / "legacy")
    allocations = []
    for uri, kind in (
        (demo_files / "aws/cur/ml-cur2", "aws-cur2"),
        (tmp_path / "legacy/cur/ml-cur", "aws-cur"),
    ):
        project.write_config(
            source("aws", kind, str(uri)) + experiments + f'[warehouse]\npath = "{kind}.duckdb"\n'
        )
        result = run("nightly")
        assert result.exit_code in (0, 2), result.stderr
        con = duckdb.connect(str(project.root / f"{kind}.duckdb"), read_only=True)
        allocations.append(
            con.execute(
                "SELECT c.row_identity, a.* EXCLUDE (charge_id) FROM allocations a JOIN charges c USING (charge_id) "
                "ORDER BY c.row_identity, a.charge_period_start, a.share_no"
            ).fetchall()
        )
        con.close()
    cur2, legacy = allocations
    assert len(cur2) >= 2269
    assert legacy == cur2


def test_legacy_parquet_form_reads_like_the_csv(run, project: Project, tmp_path: Path) -> None:
    generate.write_cur_legacy_month(tmp_path / "pq", fmt="parquet")
    project.write_config(source("legacy", "aws-cur", str(tmp_path / "pq/cur/ml-cur")))
    assert_ok(run("ingest"))
    assert totals(project, "legacy") == (2269, MONTH_BILLED, MONTH_BILLED)
    con = duckdb.connect(str(project.warehouse), read_only=True)
    tags = con.execute(
        "SELECT DISTINCT tags FROM charges WHERE resource_id = 'i-0a11000000000002'"
    ).fetchall()
    assert tags == [('{"user_cost_label":"qwen-coder-eval-sft"}',)]


def test_aws_focus_export_from_s3(
    run, project: Project, fake_aws: FakeAws, tmp_path: Path, demo_files: Path
) -> None:
    bucket = fake_aws.bucket()
    generate.write_aws_focus_month(tmp_path / "focus")
    fake_aws.upload(bucket, tmp_path / "focus")
    project.write_config(
        source("focus", "aws-focus", f"s3://{bucket}/focus/ml-focus", fake_aws.endpoint)
        + f'[experiments]\nuri = "{demo_files / "experiments.jsonl"}"\n'
    )
    assert_ok(run("nightly"))
    assert totals(project, "focus") == (2269, MONTH_BILLED, MONTH_BILLED)
    con = duckdb.connect(str(project.warehouse), read_only=True)
    tags = con.execute(
        "SELECT DISTINCT tags FROM charges WHERE resource_id = 'i-0a11000000000002'"
    ).fetchall()
    sft_train = con.execute(
        "SELECT sum(a.effective_cost) FROM allocations a JOIN charges c USING (charge_id) "
        "WHERE a.experiment_id = 'exp-sft-0412' AND c.resource_id = 'i-0a11000000000001' AND c.consumed_unit = 'Hrs'"
    ).fetchone()
    con.close()
    assert tags == [('{"cost-label":"qwen-coder-eval-sft"}',)]
    # 22 hours of p5.48xlarge at $55.04, tagged with the experiment.
    assert sft_train == (Decimal("1210.88"),)


def test_listing_pages_past_1000_objects_to_find_the_manifest(
    run, project: Project, fake_aws: FakeAws, demo_files: Path, tmp_path: Path
) -> None:
    """1,100 stale files of earlier executions sort before metadata/: the manifest is on the second page
    of ListObjectsV2, and only the files it names are read."""
    stale = tmp_path / "stale/cur/ml-cur2/data/BILLING_PERIOD=2026-11/earlier-execution"
    stale.mkdir(parents=True)
    for n in range(1100):
        (stale / f"ml-cur2-{n + 1:05d}.csv.gz").write_bytes(b"not read")
    bucket = fake_aws.bucket()
    assert fake_aws.upload(bucket, tmp_path / "stale") == 1100
    fake_aws.upload(bucket, demo_files / "aws")
    project.write_config(source("cur", "aws-cur2", f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint))

    assert_ok(run("ingest"))
    assert len(fake_aws.get_objects) == 2
    assert totals(project, "cur") == (2269, MONTH_BILLED, MONTH_BILLED)


def test_role_arn_is_assumed_and_aws_endpoint_url_is_honoured(
    run, project: Project, fake_aws: FakeAws, demo_files: Path, monkeypatch
) -> None:
    """No endpoint_url in the config: boto3's own AWS_ENDPOINT_URL applies, to STS and S3 alike."""
    bucket = fake_aws.bucket()
    fake_aws.upload(bucket, demo_files / "aws")
    monkeypatch.setenv("AWS_ENDPOINT_URL", fake_aws.endpoint)
    project.write_config(
        source(
            "cur",
            "aws-cur2",
            f"s3://{bucket}/cur/ml-cur2",
            role_arn="arn:aws:iam::111122223333:role/cost-read",
        )
    )
    assert_ok(run("ingest"))
    assert "sts.AssumeRole" in fake_aws.calls
    assert totals(project, "cur") == (2269, MONTH_BILLED, MONTH_BILLED)
