"""What a user sees when an AWS source is wrong: one line naming the place and the reason."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from aws_fakes import FakeAws
from conftest import Project


def cur2_source(uri: str, endpoint: str) -> str:
    return f'[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "{uri}"\nendpoint_url = "{endpoint}"\n'


def error_line(result) -> str:
    assert result.exit_code == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    return lines[-1]


def test_missing_bucket(run, project: Project, fake_aws: FakeAws) -> None:
    project.write_config(cur2_source("s3://no-such-bucket-here/cur/ml-cur2", fake_aws.endpoint))
    assert error_line(run("ingest")) == (
        "trainledger: error: source 'cur': cannot list s3://no-such-bucket-here/cur/ml-cur2/: "
        "bucket no-such-bucket-here does not exist"
    )


def test_missing_prefix(run, project: Project, fake_aws: FakeAws) -> None:
    bucket = fake_aws.bucket()
    project.write_config(cur2_source(f"s3://{bucket}/cur/typo", fake_aws.endpoint))
    assert error_line(run("ingest")) == (
        f"trainledger: error: source 'cur': no objects under s3://{bucket}/cur/typo/; check the bucket and prefix"
    )


def test_missing_manifest(run, project: Project, fake_aws: FakeAws, demo_files: Path) -> None:
    bucket = fake_aws.bucket()
    fake_aws.upload(bucket, demo_files / "aws/cur/ml-cur2/data", prefix="cur/ml-cur2/data/")
    project.write_config(cur2_source(f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint))
    assert error_line(run("ingest")) == (
        f"trainledger: error: s3://{bucket}/cur/ml-cur2/metadata/: no *-Manifest.json: "
        "the CUR 2.0 manifest is missing"
    )


def test_manifest_naming_an_absent_file(run, project: Project, fake_aws: FakeAws, demo_files: Path) -> None:
    bucket = fake_aws.bucket()
    fake_aws.upload(bucket, demo_files / "aws")
    data = "cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet"
    fake_aws.s3.delete_object(Bucket=bucket, Key=data)
    fake_aws.s3.put_object(
        Bucket=bucket, Key="cur/ml-cur2/data/BILLING_PERIOD=2026-11/other.parquet", Body=b"x"
    )
    project.write_config(cur2_source(f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint))
    assert error_line(run("ingest")) == (
        f"trainledger: error: s3://{bucket}/cur/ml-cur2/metadata/BILLING_PERIOD=2026-11/ml-cur2-Manifest.json: "
        f"names data file 's3://ml-billing-exports/{data}', which does not exist under s3://{bucket}/cur/ml-cur2/"
    )


def test_a_file_that_is_not_a_cur(run, project: Project, fake_aws: FakeAws, tmp_path: Path) -> None:
    bucket = fake_aws.bucket()
    key = "cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.csv.gz"
    fake_aws.s3.put_object(Bucket=bucket, Key=key, Body=gzip.compress(b"date,amount\n2026-11-01,12.50\n"))
    manifest = {"executionId": "e", "dataFiles": [f"s3://{bucket}/{key}"]}
    fake_aws.s3.put_object(
        Bucket=bucket,
        Key="cur/ml-cur2/metadata/BILLING_PERIOD=2026-11/ml-cur2-Manifest.json",
        Body=json.dumps(manifest).encode(),
    )
    project.write_config(cur2_source(f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint))
    assert error_line(run("ingest")) == (
        f"trainledger: error: s3://{bucket}/{key}: not a CUR 2.0 file: missing column(s) identity_line_item_id, "
        "identity_time_interval, bill_billing_period_start_date, bill_billing_period_end_date, "
        "line_item_line_item_type ..."
    )


def test_access_denied_names_the_place_and_the_identity(
    run, project: Project, fake_aws: FakeAws, monkeypatch
) -> None:
    bucket = fake_aws.bucket()
    iam = fake_aws.client("iam")
    iam.create_user(UserName="cost-reader")
    iam.put_user_policy(
        UserName="cost-reader",
        PolicyName="only-whoami",
        PolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "sts:GetCallerIdentity", "Resource": "*"}],
            }
        ),
    )
    key = iam.create_access_key(UserName="cost-reader")["AccessKey"]
    project.write_config(cur2_source(f"s3://{bucket}/cur/ml-cur2", fake_aws.endpoint))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key["AccessKeyId"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", key["SecretAccessKey"])
    fake_aws.require_auth(True)  # moto now checks every request against IAM
    try:
        line = error_line(run("ingest"))
    finally:
        fake_aws.require_auth(False)
    assert line == (
        f"trainledger: error: source 'cur': cannot list s3://{bucket}/cur/ml-cur2/: access denied for "
        "arn:aws:iam::123456789012:user/cost-reader (AccessDenied); check its IAM policy"
    )
