"""Cost categories (SPEC §4) from service and usage type: rules as data, overridable in config."""

from __future__ import annotations

from trainledger.config import CategoriesConfig

CATEGORIES = ("compute", "storage", "network", "data", "ops", "other")

# Usage-type fragments win over the service: EC2 bills EBS and data transfer under its own name, and
# GCP bills disks, images and egress under Compute Engine, downloads under Cloud Storage (SKU names).
USAGE_TYPE_RULES: tuple[tuple[str, str], ...] = (
    ("datatransfer", "network"),
    ("-bytes", "network"),
    ("natgateway", "network"),
    ("network", "network"),
    ("egress", "network"),
    ("ebs:", "storage"),
    ("snapshotusage", "storage"),
    ("timedstorage", "storage"),
    ("storage pd", "storage"),
    ("pd capacity", "storage"),
    ("hyperdisk", "storage"),
    ("storage image", "storage"),
    ("local storage", "storage"),
    ("download worldwide", "network"),
    ("download china", "network"),
    ("download australia", "network"),
    ("static ip", "network"),
    ("requests-tier", "storage"),
    ("labeling", "data"),
    ("boxusage", "compute"),
    ("spotusage", "compute"),
    ("dedicatedusage", "compute"),
    ("gpu", "compute"),
)

SERVICE_RULES: tuple[tuple[str, str], ...] = (
    ("savings plan", "compute"),
    ("support", "ops"),
    ("cloudwatch", "ops"),
    ("cloudtrail", "ops"),
    ("cloud logging", "ops"),
    ("cloud monitoring", "ops"),
    ("config", "ops"),
    ("data transfer", "network"),
    ("datatransfer", "network"),
    ("cloudfront", "network"),
    ("networking", "network"),
    ("virtual private cloud", "network"),
    ("ground truth", "data"),
    ("glue", "data"),
    ("athena", "data"),
    ("emr", "data"),
    ("elastic mapreduce", "data"),
    ("bigquery", "data"),
    ("dataflow", "data"),
    ("dataproc", "data"),
    ("kinesis", "data"),
    ("simple storage service", "storage"),
    ("amazons3", "storage"),
    ("s3", "storage"),
    ("cloud storage", "storage"),
    ("elastic file system", "storage"),
    ("fsx", "storage"),
    ("glacier", "storage"),
    ("backup", "storage"),
    ("filestore", "storage"),
    ("elastic compute cloud", "compute"),
    ("amazonec2", "compute"),
    ("ec2", "compute"),
    ("sagemaker", "compute"),
    ("compute engine", "compute"),
    ("vertex ai", "compute"),
    ("kubernetes", "compute"),
    ("batch", "compute"),
    ("lambda", "compute"),
)


class Categorizer:
    def __init__(self, config: CategoriesConfig) -> None:
        self.usage_rules = [(k.lower(), v) for k, v in config.usage_types.items()] + list(USAGE_TYPE_RULES)
        self.service_rules = [(k.lower(), v) for k, v in config.services.items()] + list(SERVICE_RULES)

    def categorize(self, service_name: str | None, usage_type: str | None) -> tuple[str, bool]:
        """(category, known); unknown services fall to `other` and are reported by `labels`."""
        usage = (usage_type or "").lower()
        for fragment, category in self.usage_rules:
            if fragment in usage:
                return category, True
        service = (service_name or "").lower()
        for fragment, category in self.service_rules:
            if fragment in service:
                return category, True
        return "other", False
