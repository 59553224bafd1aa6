"""Live tags from EC2, EBS and the Resource Groups Tagging API (moto server), and attribution rule 3."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from aws_fakes import FakeAws
from conftest import Project, demo_config
from trainledger.connectors import aws_tags


def tags_source(endpoint: str, region: str = "eu-west-3") -> str:
    return (
        f'[[sources]]\nname = "live-tags"\nkind = "aws-tags"\nregions = ["{region}"]\n'
        f'endpoint_url = "{endpoint}"\n'
    )


def test_every_page_of_instances_volumes_and_tagged_resources_is_stored(
    run, project: Project, fake_aws: FakeAws, monkeypatch
) -> None:
    monkeypatch.setitem(aws_tags.PAGE_SIZES, "describe_instances", 3)
    monkeypatch.setitem(aws_tags.PAGE_SIZES, "describe_volumes", 2)
    ec2 = fake_aws.client("ec2", "eu-west-3")
    reservations = [
        ec2.run_instances(
            ImageId="ami-12c6146b",
            MinCount=1,
            MaxCount=1,
            InstanceType="p5.48xlarge",
            TagSpecifications=[
                {"ResourceType": "instance", "Tags": [{"Key": "cost-label", "Value": f"proj{n}-train-sft"}]}
            ],
        )
        for n in range(7)
    ]
    ids = [r["Instances"][0]["InstanceId"] for r in reservations]
    volume = ec2.create_volume(
        AvailabilityZone="eu-west-3a",
        Size=500,
        TagSpecifications=[{"ResourceType": "volume", "Tags": [{"Key": "project", "Value": "datasets"}]}],
    )["VolumeId"]
    project.write_config(tags_source(fake_aws.endpoint))

    assert run("ingest").exit_code == 0
    con = duckdb.connect(str(project.warehouse), read_only=True)
    stored = dict(
        con.execute("SELECT resource_id, tags FROM resources WHERE region_id = 'eu-west-3'").fetchall()
    )
    first_seen = con.execute("SELECT min(first_seen), max(last_seen) FROM resources").fetchone()
    con.close()
    for n, ident in enumerate(ids):
        assert json.loads(stored[ident]) == {"cost-label": f"proj{n}-train-sft"}
    assert json.loads(stored[volume]) == {"project": "datasets"}
    assert fake_aws.calls.count("ec2.DescribeInstances") == 3  # 7 instances, 3 a page

    assert run("ingest").exit_code == 0  # a second pull keeps first_seen and moves last_seen
    con = duckdb.connect(str(project.warehouse), read_only=True)
    again = con.execute("SELECT min(first_seen), max(last_seen) FROM resources").fetchone()
    con.close()
    assert again[0] == first_seen[0]
    assert again[1] >= first_seen[1]


def test_a_bucket_untagged_in_the_bill_is_attributed_by_its_live_tags(
    run, project: Project, fake_aws: FakeAws, demo_files: Path
) -> None:
    """scratch-untagged has no tags in the CUR (never activated as cost allocation tags); live it has."""
    s3 = fake_aws.s3
    s3.create_bucket(Bucket="scratch-untagged")
    s3.put_bucket_tagging(
        Bucket="scratch-untagged",
        Tagging={"TagSet": [{"Key": "cost-label", "Value": "qwen-coder-data-sft"}]},
    )
    project.write_config(demo_config(demo_files) + tags_source(fake_aws.endpoint, "us-east-1"))
    try:
        result = run("nightly")
    finally:
        s3.delete_bucket_tagging(Bucket="scratch-untagged")
        s3.delete_bucket(Bucket="scratch-untagged")
    assert result.exit_code in (0, 2), result.stderr

    bill = Decimal(0)
    table = pq.read_table(next((demo_files / "aws/cur/ml-cur2/data").rglob("*.parquet")))
    for resource, cost in zip(
        table.column("line_item_resource_id").to_pylist(),
        table.column("line_item_unblended_cost").to_pylist(),
        strict=True,
    ):
        if resource == "scratch-untagged":
            bill += Decimal(repr(cost))
    assert bill == Decimal("20.7")  # 900 GB of S3 Standard for November at $0.023 per GB-month

    con = duckdb.connect(str(project.warehouse), read_only=True)
    placed = con.execute(
        """
        SELECT a.rule, a.project, a.phase, a.method, sum(a.billed_cost)
        FROM allocations a JOIN charges c USING (charge_id)
        WHERE c.resource_id = 'scratch-untagged' GROUP BY ALL
        """
    ).fetchall()
    con.close()
    assert placed == [("inventory", "qwen-coder", "data", "sft", Decimal("20.7000000000"))]
