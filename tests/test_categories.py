"""Cost categories from service name and usage type (SPEC §4), as AWS and GCP write them."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from focus_files import write_focus
from trainledger.attribution.categories import Categorizer
from trainledger.core.config import CategoriesConfig
from trainledger.core.errors import ConfigError

# (provider, service name, usage type or GCP SKU description, category). AWS names from CUR `product_name`
# and `line_item_usage_type`; GCP from the billing export's service.description and sku.description.
CASES = [
    ("aws", "Amazon Elastic Compute Cloud", "BoxUsage:p5.48xlarge", "compute"),
    ("aws", "Amazon Elastic Compute Cloud", "USE2-SpotUsage:p4d.24xlarge", "compute"),
    ("aws", "Amazon Elastic Compute Cloud", "EBS:VolumeUsage.gp3", "storage"),
    ("aws", "Amazon Elastic Compute Cloud", "USE1-EBS:SnapshotUsage", "storage"),
    ("aws", "Amazon Elastic Compute Cloud", "DataTransfer-Out-Bytes", "network"),
    ("aws", "Amazon Elastic Compute Cloud", "USE1-NatGateway-Bytes", "network"),
    ("aws", "Amazon Simple Storage Service", "TimedStorage-ByteHrs", "storage"),
    ("aws", "Amazon Simple Storage Service", "Requests-Tier1", "storage"),
    ("aws", "Amazon Simple Storage Service", "USE1-USW2-AWS-Out-Bytes", "network"),
    ("aws", "Savings Plans for AWS Compute usage", "ComputeSP:1yrNoUpfront", "compute"),
    ("aws", "Amazon SageMaker", "USE1-Train:ml.p4d.24xlarge", "compute"),
    ("aws", "Amazon SageMaker Ground Truth", "USE1-LabelingWorkforce", "data"),
    ("aws", "AmazonCloudWatch", "CAN1-TimedStorage-ByteHrs", "ops"),
    ("aws", "AmazonCloudWatch", "USE1-DataProcessing-Bytes", "ops"),
    ("aws", "AWS Support (Business)", None, "ops"),
    ("aws", "AWS Glue", "USE1-Catalog-Request", "data"),
    ("aws", "Amazon Elastic File System", "USE2-TimedStorage-ByteHrs", "storage"),
    ("gcp", "Compute Engine", "Nvidia H100 80GB GPU running in Americas", "compute"),
    ("gcp", "Compute Engine", "A3 Instance Core running in Americas", "compute"),
    ("gcp", "Compute Engine", "Storage PD Capacity", "storage"),
    ("gcp", "Compute Engine", "SSD backed PD Capacity in Belgium", "storage"),
    ("gcp", "Compute Engine", "Storage PD Snapshot in Frankfurt", "storage"),
    ("gcp", "Compute Engine", "Hyperdisk Balanced Capacity", "storage"),
    ("gcp", "Compute Engine", "Network Internet Egress from Americas to Americas", "network"),
    ("gcp", "Compute Engine", "Network Inter Zone Egress", "network"),
    ("gcp", "Cloud Storage", "Standard Storage US Multi-region", "storage"),
    ("gcp", "Cloud Storage", "Download Worldwide Destinations (excluding Asia & Australia)", "network"),
    ("gcp", "Vertex AI", "Vertex AI: Training on A100 GPU", "compute"),
    ("gcp", "BigQuery", "Analysis", "data"),
    ("gcp", "Cloud Logging", "Log Volume", "ops"),
]


@pytest.mark.parametrize(("provider", "service", "usage", "category"), CASES)
def test_default_mapping(provider: str, service: str, usage: str | None, category: str) -> None:
    categorizer = Categorizer(CategoriesConfig())
    assert categorizer.categorize(service, usage, provider=provider) == (category, True)
    # A bill that names no provider the table knows is read with every provider's rules.
    assert categorizer.categorize(service, usage) == (category, True)


def test_a_providers_rules_are_its_own() -> None:
    """GCP's SKU words say nothing of another provider's bill: an Azure row named like them is unknown."""
    categorizer = Categorizer(CategoriesConfig())
    assert categorizer.categorize("Cloud Storage", "Standard Storage US", provider="gcp") == ("storage", True)
    assert categorizer.categorize("Cloud Storage", "Standard Storage US", provider="azure") == (
        "other",
        False,
    )


def test_unknown_service_is_other_and_flagged() -> None:
    categorizer = Categorizer(CategoriesConfig())
    assert categorizer.categorize("Amazon Simple Queue Service", "Requests-Tier1", provider="aws") == (
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


def test_a_focus_files_service_category_places_services_the_rules_do_not_know(run, project) -> None:
    """Azure's FOCUS export: "Virtual Machines" and "Storage Accounts" match no service-name rule (they
    were `other`); their ServiceCategory says Compute and Storage. `[categories] service_categories`
    overrides the mapping (Databases -> storage here); a category that says nothing (Other) falls back to
    the rules."""
    azure = {
        "ProviderName": "Microsoft",
        "BillingAccountId": "ba-0001",
        "SubAccountId": "sub-0001",
        "x_UsageType": "",
    }
    write_focus(
        project.root / "bill.csv",
        [
            {**azure, "ServiceName": "Virtual Machines", "ServiceCategory": "Compute", "BilledCost": "40.00"},
            {**azure, "ServiceName": "Storage Accounts", "ServiceCategory": "Storage", "BilledCost": "7.50"},
            {**azure, "ServiceName": "Azure Cosmos DB", "ServiceCategory": "Databases", "BilledCost": "3.25"},
            {**azure, "ServiceName": "Azure Monitor", "ServiceCategory": "Management and Governance",
             "BilledCost": "1.10"},
            {**azure, "ServiceName": "Bandwidth", "ServiceCategory": "Networking", "BilledCost": "0.90"},
            {**azure, "ServiceName": "Azure Data Box", "ServiceCategory": "Other", "BilledCost": "2.00"},
        ],
    )  # fmt: skip
    project.write_config(
        '[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n\n'
        '[categories]\nservice_categories = { "Databases" = "storage" }\n'
    )
    assert run("ingest").exit_code == 0
    assert run("attribute").exit_code == 0
    result = run("report", "--by", "category,service", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    got = {
        (r["service_name"], r["cost_category"]): Decimal(r["effective_cost"])
        for r in csv.DictReader(io.StringIO(result.stdout))
    }
    assert got == {
        ("Virtual Machines", "compute"): Decimal("40.00"),
        ("Storage Accounts", "storage"): Decimal("7.50"),
        ("Azure Cosmos DB", "storage"): Decimal("3.25"),
        ("Azure Monitor", "ops"): Decimal("1.10"),
        ("Bandwidth", "network"): Decimal("0.90"),
        ("Azure Data Box", "other"): Decimal("2.00"),
    }


def test_a_service_category_override_must_name_a_category() -> None:
    with pytest.raises(ConfigError, match=r"\[categories\] service_categories: 'Databases' = 'db' is not a"):
        Categorizer(CategoriesConfig(service_categories={"Databases": "db"}))
