"""Cost categories (SPEC §4) from service and usage type: rules as data, overridable in config.

A rule is ``(service fragment, usage-type fragment, category)``; both fragments are lowercase substrings
("" matches anything) and the first rule that matches wins. Order matters: observability services come
first (CloudWatch bills log storage as ``TimedStorage-ByteHrs``), then usage types (EC2 bills EBS and data
transfer under its own service name; GCP bills GPUs, disks and egress under "Compute Engine"), then
services. The ``[categories]`` overrides come before all of these, and a FOCUS file's own
``ServiceCategory`` (Compute, Storage, Networking, Databases, ...) right after them: a provider knows its
services better than name rules do (Azure's "Virtual Machines", "Storage Accounts").
"""

from __future__ import annotations

from trainledger.core.config import CategoriesConfig
from trainledger.core.errors import ConfigError

CATEGORIES = ("compute", "storage", "network", "data", "ops", "other")

Rule = tuple[str, str, str]

# FOCUS 1.2 ServiceCategory values -> cost category; the others (Business Applications, Integration, Web,
# Other, ...) say nothing about the kind of cost and fall through to the rules. `[categories]
# service_categories` overrides or adds entries.
DEFAULT_SERVICE_CATEGORIES: dict[str, str] = {
    "AI and Machine Learning": "compute",
    "Compute": "compute",
    "Storage": "storage",
    "Networking": "network",
    "Databases": "data",
    "Analytics": "data",
    "Management and Governance": "ops",
    "Security": "ops",
    "Identity": "ops",
    "Developer Tools": "ops",
}

DEFAULT_RULES: tuple[Rule, ...] = (
    # Observability, security and support services, whatever their usage types say.
    ("cloudwatch", "", "ops"),
    ("cloudtrail", "", "ops"),
    ("cloud logging", "", "ops"),
    ("cloud monitoring", "", "ops"),
    ("support", "", "ops"),
    ("aws config", "", "ops"),
    ("key management service", "", "ops"),
    ("secrets manager", "", "ops"),
    # Network by usage type: AWS `DataTransfer-Out-Bytes`, `USE1-USW2-AWS-Out-Bytes`, `NatGateway-Bytes`;
    # GCP `Network Internet Egress from Americas to Americas`, Cloud Storage `Download Worldwide ...`.
    ("", "datatransfer", "network"),
    ("", "-out-bytes", "network"),
    ("", "-in-bytes", "network"),
    ("", "natgateway", "network"),
    ("", "loadbalancer", "network"),
    ("", "egress", "network"),
    ("", "network", "network"),
    ("cloud storage", "download", "network"),
    ("", "static ip", "network"),
    # Storage by usage type: AWS `EBS:VolumeUsage.gp3`, `EBS:SnapshotUsage`, S3/EFS `TimedStorage-ByteHrs`;
    # GCP `Storage PD Capacity`, `SSD backed PD Capacity`, `Storage PD Snapshot`, `Hyperdisk ... Capacity`.
    ("", "ebs:", "storage"),
    # SageMaker training / HyperPod volumes: `USE1-Train:VolumeUsage.gp2`, `USE1-Cluster:VolumeUsage.gp2`.
    ("", "volumeusage", "storage"),
    ("", "snapshotusage", "storage"),
    ("", "timedstorage", "storage"),
    ("", "pd capacity", "storage"),
    ("", "storage pd", "storage"),
    ("", "pd snapshot", "storage"),
    ("", "hyperdisk", "storage"),
    ("", "storage image", "storage"),
    ("", "local storage", "storage"),
    # Compute by usage type: AWS `BoxUsage:p5.48xlarge`, `SpotUsage:...`; GCP `Nvidia H100 80GB GPU running
    # in ...`, `A3 Instance Core running in ...`, TPU SKUs.
    ("", "boxusage", "compute"),
    ("", "spotusage", "compute"),
    ("", "dedicatedusage", "compute"),
    ("", "gpu", "compute"),
    ("", "tpu", "compute"),
    ("", "instance core", "compute"),
    ("", "instance ram", "compute"),
    ("", "labeling", "data"),
    # Services. Savings Plans / reservations pay for compute (`Savings Plans for AWS Compute usage`).
    ("savings plan", "", "compute"),
    ("data transfer", "", "network"),
    ("cloudfront", "", "network"),
    ("networking", "", "network"),
    ("virtual private cloud", "", "network"),
    ("ground truth", "", "data"),
    ("data labeling", "", "data"),
    ("glue", "", "data"),
    ("athena", "", "data"),
    ("emr", "", "data"),
    ("elastic mapreduce", "", "data"),
    ("bigquery", "", "data"),
    ("dataflow", "", "data"),
    ("dataproc", "", "data"),
    ("kinesis", "", "data"),
    ("simple storage service", "", "storage"),
    ("amazons3", "", "storage"),
    ("s3", "", "storage"),
    ("cloud storage", "", "storage"),
    ("elastic file system", "", "storage"),
    ("fsx", "", "storage"),
    ("glacier", "", "storage"),
    ("backup", "", "storage"),
    ("filestore", "", "storage"),
    ("artifact registry", "", "storage"),
    ("elastic compute cloud", "", "compute"),
    ("amazonec2", "", "compute"),
    ("ec2", "", "compute"),
    ("sagemaker", "", "compute"),
    ("bedrock", "", "compute"),
    ("compute engine", "", "compute"),
    ("vertex ai", "", "compute"),
    ("cloud tpu", "", "compute"),
    ("kubernetes", "", "compute"),
    ("batch", "", "compute"),
    ("lambda", "", "compute"),
)


class Categorizer:
    def __init__(self, config: CategoriesConfig) -> None:
        sections = (
            ("services", config.services),
            ("usage_types", config.usage_types),
            ("service_categories", config.service_categories),
        )
        for section, mapping in sections:
            for fragment, category in mapping.items():
                if not fragment.strip():
                    raise ConfigError(f"[categories] {section}: an empty name would match every charge")
                if category not in CATEGORIES:
                    raise ConfigError(
                        f"[categories] {section}: {fragment!r} = {category!r} is not a category "
                        f"({', '.join(CATEGORIES)})"
                    )
        overrides: list[Rule] = [("", k.lower(), v) for k, v in config.usage_types.items()]
        overrides += [(k.lower(), "", v) for k, v in config.services.items()]
        self.overrides = overrides
        self.service_categories = {
            k.strip().lower(): v
            for k, v in {**DEFAULT_SERVICE_CATEGORIES, **config.service_categories}.items()
        }

    def categorize(
        self, service_name: str | None, usage_type: str | None, service_category: str | None = None
    ) -> tuple[str, bool]:
        """(category, known); unknown services fall to `other` and are reported by `labels`."""
        service = (service_name or "").lower()
        usage = (usage_type or "").lower()
        for service_part, usage_part, category in self.overrides:
            if service_part in service and usage_part in usage:
                return category, True
        by_focus = self.service_categories.get((service_category or "").strip().lower())
        if by_focus:
            return by_focus, True
        for service_part, usage_part, category in DEFAULT_RULES:
            if service_part in service and usage_part in usage:
                return category, True
        return "other", False
