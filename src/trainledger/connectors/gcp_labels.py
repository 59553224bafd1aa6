"""Compute Engine instances and their live labels into ``resources`` (attribution rule 3 for GCP).

Labels added after launch, or on resources the bill shows unlabelled, still place a charge through the
inventory. The bill names an instance by ``resource.global_name`` (project number, zone, numeric id) and
people name it by its instance name, so the name, the numeric id and both global-name spellings (project
number and project id) are all kept as aliases (SPEC §5).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from trainledger.connectors import IngestResult, gcp_api, staging
from trainledger.connectors.contract import Example
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import SourceError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection


def _last(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def global_name(project: str, zone: str, instance_id: str) -> str:
    """The billing export's ``resource.global_name`` of an instance."""
    return f"//compute.googleapis.com/projects/{project}/zones/{zone}/instances/{instance_id}"


def _project_number(source: SourceConfig, project: str, reporter: Reporter) -> str | None:
    """The project number the bill writes in global names; None (with a warning) when not readable."""
    from google.cloud import compute_v1

    try:
        client = compute_v1.ProjectsClient(transport="rest", **gcp_api.client_kwargs(source))
        return str(
            gcp_api.bounded(
                source, lambda timeout: client.get(project=project, timeout=timeout, retry=None)
            ).id
        )
    except gcp_api.api_errors() as exc:
        reporter.warn(str(gcp_api.source_error(source, exc, f"reading project {project}'s number")))
        return None


def resource_rows(
    source: SourceConfig, project: str, number: str | None, instances: list[tuple[str, Any]], seen: datetime
) -> list[dict[str, Any]]:
    rows = []
    for zone_key, instance in instances:
        zone = _last(instance.zone) if instance.zone else zone_key.removeprefix("zones/")
        instance_id = str(instance.id)
        primary = global_name(number or project, zone, instance_id)
        aliases = [instance.name, instance_id, global_name(project, zone, instance_id)]
        rows.append(
            {
                "provider": "gcp",
                "resource_id": primary,
                "source": source.name,
                "resource_type": "instance",
                "region_id": zone.rsplit("-", 1)[0],
                "tags": json.dumps(dict(instance.labels), sort_keys=True, separators=(",", ":")),
                "aliases": sorted(set(aliases) - {primary}),
                "seen": seen,
            }
        )
    return rows


class Options(gcp_api.GcpOptions):
    project: str | None = None  # the project whose instances are listed
    regions: list[str] = Field(default_factory=list)  # default: every region


EXAMPLE = Example(
    None, "Compute Engine labels of live instances", ('project = "my-project"', 'regions = ["us-central1"]')
)


def pull(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    from google.cloud import compute_v1

    options = source.options_as(Options)
    if not options.project:
        raise SourceError(f"source {source.name!r}: kind gcp-labels needs `project` (the project to list)")
    project = options.project
    regions = set(options.regions)
    seen = datetime.now(UTC).replace(tzinfo=None)
    try:
        client = compute_v1.InstancesClient(transport="rest", **gcp_api.client_kwargs(source))
        request = compute_v1.AggregatedListInstancesRequest(project=project)
        listed = gcp_api.bounded(
            source, lambda timeout: list(client.aggregated_list(request=request, timeout=timeout, retry=None))
        )
        instances = [
            (zone, instance)
            for zone, scoped in listed
            for instance in scoped.instances
            if not regions or _last(instance.zone).rsplit("-", 1)[0] in regions
        ]
    except gcp_api.api_errors() as exc:
        hints = {
            "permission denied": "the caller needs compute.instances.list (roles/compute.viewer) on the project"
        }
        action = f"listing Compute Engine instances of project {project}"
        raise gcp_api.source_error(source, exc, action, hints) from None
    reporter.step(f"{source.name}: {len(instances)} instance(s) in project {project}")
    rows = resource_rows(source, project, _project_number(source, project, reporter), instances, seen)
    staging.record_resources(
        con,
        [
            (
                r["provider"],
                r["resource_id"],
                r["source"],
                r["resource_type"],
                r["region_id"],
                r["tags"],
                r["aliases"] or None,
            )
            for r in rows
        ],
        seen,
    )
    return [IngestResult(source.name, None, len(rows), version=seen.isoformat())]
