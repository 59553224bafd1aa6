"""Live AWS tags: EC2 instances and EBS volumes, plus the Resource Groups Tagging API, per region.

Attribution rule 3 (SPEC §4) reads them: a tag added after launch, or never activated as a cost allocation
tag, is missing from the bill but present here. Resources are keyed as the bill names them (instance and
volume ids, bucket names, otherwise the ARN), with the ARN kept as an alias; ``first_seen`` survives
re-pulls, ``last_seen`` moves on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from trainledger.connectors import IngestResult, staging
from trainledger.connectors.aws_session import EXAMPLE_OPTIONS, AwsContext, AwsOptions
from trainledger.connectors.contract import Example
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import ConfigError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

# Largest pages each API allows; fewer round trips on big fleets.
PAGE_SIZES = {"describe_instances": 1000, "describe_volumes": 500, "get_resources": 100}


def bill_id(arn: str) -> tuple[str, str | None]:
    """The id the bill uses for a resource ARN, and its type: ``i-...``, ``vol-...``, a bucket, or the ARN."""
    parts = arn.split(":", 5)
    if len(parts) < 6:
        return arn, None
    service, resource = parts[2], parts[5]
    if service == "ec2" and resource.startswith(("instance/", "volume/")):
        kind, _, ident = resource.partition("/")
        return ident, kind
    if service == "s3" and "/" not in resource:
        return resource, "bucket"
    return arn, resource.split("/", 1)[0].split(":", 1)[0] or None


def _tags(items: list[dict[str, Any]] | None) -> dict[str, str]:
    return {str(t["Key"]): str(t.get("Value", "")) for t in items or []}


def _pages(aws: AwsContext, client: Any, operation: str, key: str, what: str) -> Iterator[dict[str, Any]]:
    page_key = "ResourcesPerPage" if operation == "get_resources" else "MaxResults"
    try:
        paginator = client.get_paginator(operation)
        for page in paginator.paginate(**{page_key: PAGE_SIZES[operation]}):
            yield from page.get(key, [])
    except Exception as exc:
        raise aws.error(exc, what) from None


def pull_region(aws: AwsContext, region: str, account: str | None) -> dict[str, dict[str, Any]]:
    """Resources of one region by bill id: type, tags (merged across APIs) and ARN aliases."""
    seen: dict[str, dict[str, Any]] = {}

    def add(resource_id: str, kind: str | None, tags: dict[str, str], arn: str | None) -> None:
        row = seen.setdefault(resource_id, {"type": kind, "tags": {}, "aliases": set()})
        row["tags"].update(tags)
        row["type"] = row["type"] or kind
        if arn and arn != resource_id:
            row["aliases"].add(arn)

    ec2 = aws.client("ec2", region)
    where = f"in {region}"
    for reservation in _pages(
        aws, ec2, "describe_instances", "Reservations", f"describe EC2 instances {where}"
    ):
        owner = reservation.get("OwnerId") or account
        for inst in reservation.get("Instances", []):
            ident = inst["InstanceId"]
            arn = f"arn:aws:ec2:{region}:{owner}:instance/{ident}" if owner else None
            add(ident, "instance", _tags(inst.get("Tags")), arn)
    for volume in _pages(aws, ec2, "describe_volumes", "Volumes", f"describe EBS volumes {where}"):
        ident = volume["VolumeId"]
        arn = f"arn:aws:ec2:{region}:{account}:volume/{ident}" if account else None
        add(ident, "volume", _tags(volume.get("Tags")), arn)
    tagging = aws.client("resourcegroupstaggingapi", region)
    for mapping in _pages(
        aws, tagging, "get_resources", "ResourceTagMappingList", f"list tagged resources {where}"
    ):
        arn = mapping["ResourceARN"]
        ident, kind = bill_id(arn)
        add(ident, kind, _tags(mapping.get("Tags")), arn)
    return seen


class Options(AwsOptions):
    regions: list[str] = Field(default_factory=list)  # default: ``region``, else the profile's


EXAMPLE = Example(
    None,
    "EC2/EBS tags of live resources (attribution by inventory)",
    ('regions = ["us-east-1"]', *EXAMPLE_OPTIONS),
)


def pull(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    aws = AwsContext(source)
    options = source.options_as(Options)
    regions = options.regions or ([options.region] if options.region else [])
    if not regions:
        region = aws.session().region_name
        if not region:
            raise ConfigError(f"source {source.name!r}: kind aws-tags needs `regions` (or `region`)")
        regions = [region]
    try:
        account: str | None = str(aws.client("sts").get_caller_identity()["Account"])
    except Exception:  # the ARN aliases are a convenience; DescribeInstances names the owner anyway
        account = None
    rows = []
    for region in regions:
        found = pull_region(aws, region, account)
        reporter.step(f"{source.name} {region}: {len(found)} resource(s) with their tags")
        rows += [
            (
                "aws",
                ident,
                source.name,
                row["type"],
                region,
                json.dumps(row["tags"], sort_keys=True, separators=(",", ":")),
                sorted(row["aliases"]) or None,
            )
            for ident, row in sorted(found.items())
        ]
    staging.record_resources(con, rows, datetime.now(UTC).replace(tzinfo=None))
    return [IngestResult(source.name, None, len(rows))]
