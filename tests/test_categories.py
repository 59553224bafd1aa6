"""Cost categories from service name and usage type (SPEC §4), as AWS and GCP write them."""

from __future__ import annotations

import pytest

from trainledger.attribution.categories import Categorizer
from trainledger.core.config import CategoriesConfig
from trainledger.core.errors import ConfigError

# (service name, usage type or GCP SKU description, category). AWS names from CUR `product_name` and
# `line_item_usage_type`; GCP from the billing export's service.description and sku.description.
CASES = [
    ("Amazon Elastic Compute Cloud", "BoxUsage:p5.48xlarge", "compute"),
    ("Amazon Elastic Compute Cloud", "USE2-SpotUsage:p4d.24xlarge", "compute"),
    ("Amazon Elastic Compute Cloud", "EBS:VolumeUsage.gp3", "storage"),
    ("Amazon Elastic Compute Cloud", "USE1-EBS:SnapshotUsage", "storage"),
    ("Amazon Elastic Compute Cloud", "DataTransfer-Out-Bytes", "network"),
    ("Amazon Elastic Compute Cloud", "USE1-NatGateway-Bytes", "network"),
    ("Amazon Simple Storage Service", "TimedStorage-ByteHrs", "storage"),
    ("Amazon Simple Storage Service", "Requests-Tier1", "storage"),
    ("Amazon Simple Storage Service", "USE1-USW2-AWS-Out-Bytes", "network"),
    ("Savings Plans for AWS Compute usage", "ComputeSP:1yrNoUpfront", "compute"),
    ("Amazon SageMaker", "USE1-Train:ml.p4d.24xlarge", "compute"),
    ("Amazon SageMaker Ground Truth", "USE1-LabelingWorkforce", "data"),
    ("AmazonCloudWatch", "CAN1-TimedStorage-ByteHrs", "ops"),
    ("AmazonCloudWatch", "USE1-DataProcessing-Bytes", "ops"),
    ("AWS Support (Business)", None, "ops"),
    ("AWS Glue", "USE1-Catalog-Request", "data"),
    ("Amazon Elastic File System", "USE2-TimedStorage-ByteHrs", "storage"),
    ("Compute Engine", "Nvidia H100 80GB GPU running in Americas", "compute"),
    ("Compute Engine", "A3 Instance Core running in Americas", "compute"),
    ("Compute Engine", "Storage PD Capacity", "storage"),
    ("Compute Engine", "SSD backed PD Capacity in Belgium", "storage"),
    ("Compute Engine", "Storage PD Snapshot in Frankfurt", "storage"),
    ("Compute Engine", "Hyperdisk Balanced Capacity", "storage"),
    ("Compute Engine", "Network Internet Egress from Americas to Americas", "network"),
    ("Compute Engine", "Network Inter Zone Egress", "network"),
    ("Cloud Storage", "Standard Storage US Multi-region", "storage"),
    ("Cloud Storage", "Download Worldwide Destinations (excluding Asia & Australia)", "network"),
    ("Vertex AI", "Vertex AI: Training on A100 GPU", "compute"),
    ("BigQuery", "Analysis", "data"),
    ("Cloud Logging", "Log Volume", "ops"),
]


@pytest.mark.parametrize(("service", "usage", "category"), CASES)
def test_default_mapping(service: str, usage: str | None, category: str) -> None:
    assert Categorizer(CategoriesConfig()).categorize(service, usage) == (category, True)


def test_unknown_service_is_other_and_flagged() -> None:
    assert Categorizer(CategoriesConfig()).categorize("Amazon Simple Queue Service", "Requests-Tier1") == (
        "other",
        False,
    )


def test_config_overrides_win_over_every_default() -> None:
    categorizer = Categorizer(
        CategoriesConfig(
            services={"Amazon Simple Queue Service": "data", "Amazon Elastic Compute Cloud": "other"},
            usage_types={"boxusage:g6": "data"},
        )
    )
    assert categorizer.categorize("Amazon Simple Queue Service", "Requests-Tier1") == ("data", True)
    assert categorizer.categorize("Amazon Elastic Compute Cloud", "BoxUsage:p5.48xlarge") == ("other", True)
    assert categorizer.categorize("Amazon Elastic Compute Cloud", "BoxUsage:g6.xlarge") == ("data", True)


def test_override_to_an_unknown_category_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        Categorizer(CategoriesConfig(services={"Amazon Bedrock": "inference"}))
    assert str(caught.value) == (
        "[categories] services: 'Amazon Bedrock' = 'inference' is not a category "
        "(compute, storage, network, data, ops, other)"
    )
