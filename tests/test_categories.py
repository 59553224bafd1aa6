"""Cost categories from service name and usage type (SPEC §4), as AWS and GCP write them."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from focus_files import write_focus
from trainledger.attribution.categories import Categorizer
from trainledger.core.config_spend import CategoriesConfig
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


# EKS and ECS split cost allocation rows and Fargate restate their node's (or task's) compute: a GPU pod's
# cost is compute whatever service the row names. Usage types as AWS bills them: EKS pods
# `<region>-EKS-EC2-vCPU-Hours` / `-EKS-EC2-GB-Hours` (the published CUR queries over split cost allocation
# data select them as `line_item_usage_type LIKE '%EKS-EC2-vCPU-Hours'`); ECS tasks on EC2
# `USE1-ECS-EC2-vCPU-Hours` (AWS Price List, AmazonECS "Compute Metering") and `APN1-ECS-EC2-GB-Hours` (Cost
# Explorer); Fargate `USW2-Fargate-vCPU-Hours:perCPU`, `USW2-Fargate-GB-Hours`, `USE1-Fargate-ARM-GB-Hours`,
# `USW2-Fargate-EphemeralStorage-GB-Hours` (AWS Price List, AmazonECS).
SPLIT_COST_CASES = [
    ("aws", "Amazon Elastic Kubernetes Service", "USE1-EKS-EC2-vCPU-Hours", "compute"),
    ("aws", "Amazon Elastic Kubernetes Service", "USE1-EKS-EC2-GB-Hours", "compute"),
    ("aws", "AmazonEKS", "USE1-EKS-EC2-GB-Hours", "compute"),  # legacy CUR without a product name
    ("aws", "Amazon Elastic Container Service", "USE1-ECS-EC2-vCPU-Hours", "compute"),
    ("aws", "Amazon Elastic Container Service", "APN1-ECS-EC2-GB-Hours", "compute"),
    ("aws", "AmazonECS", "APN1-ECS-EC2-GB-Hours", "compute"),
    ("aws", "Amazon Elastic Container Service", "USW2-Fargate-vCPU-Hours:perCPU", "compute"),
    ("aws", "Amazon Elastic Container Service", "USW2-Fargate-GB-Hours", "compute"),
    ("aws", "Amazon Elastic Container Service", "USE1-Fargate-ARM-GB-Hours", "compute"),
    ("aws", "Amazon Elastic Container Service", "USW2-Fargate-EphemeralStorage-GB-Hours", "storage"),
    ("aws", "Amazon Elastic Container Service", "USW2-DataTransfer-Out-Bytes", "network"),
]


@pytest.mark.parametrize(("provider", "service", "usage", "category"), CASES + SPLIT_COST_CASES)
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


def test_container_rows_of_an_aws_focus_export_are_compute(run, project) -> None:
    """AWS's FOCUS export files ECS under ServiceCategory "Other" (as in the FinOps Foundation's FOCUS
    sample), which says nothing: the usage types do. Tasks on EC2 and Fargate tasks are compute, their
    data transfer network. Before, the tasks' cost left compute for `other`."""
    ecs = {
        "ProviderName": "AWS",
        "ServiceName": "Amazon Elastic Container Service",
        "ServiceCategory": "Other",
    }
    write_focus(
        project.root / "bill.csv",
        [
            {**ecs, "x_UsageType": "USE1-ECS-EC2-vCPU-Hours", "BilledCost": "3.20"},
            {**ecs, "x_UsageType": "USE1-ECS-EC2-GB-Hours", "BilledCost": "0.35"},
            {**ecs, "x_UsageType": "USW2-Fargate-vCPU-Hours:perCPU", "BilledCost": "0.04048"},
            {**ecs, "x_UsageType": "USW2-Fargate-GB-Hours", "BilledCost": "0.004445"},
            {**ecs, "x_UsageType": "USW2-DataTransfer-Out-Bytes", "BilledCost": "0.09"},
        ],
    )
    project.write_config('[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n')
    assert run("nightly").exit_code == 0
    result = run("report", "--by", "category", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    got = {
        r["cost_category"]: Decimal(r["effective_cost"]) for r in csv.DictReader(io.StringIO(result.stdout))
    }
    # 3.20 + 0.35 + 0.04048 + 0.004445
    assert got == {"compute": Decimal("3.594925"), "network": Decimal("0.09")}


def test_a_focus_file_naming_the_manual_provider_is_categorised_by_rule(run, project) -> None:
    """The FOCUS export writes the manual ledger's rows as ProviderName `manual`, their category as
    x_UsageType. Read back, a stated category is kept; a row without one (an older export, another tool's
    file) is categorised by the rules, not stored without a category."""
    manual = {"ProviderName": "manual", "BillingAccountId": "ba-0001", "SubAccountId": "sub-0001"}
    write_focus(
        project.root / "bill.csv",
        [
            {**manual, "ServiceName": "Annotation vendor", "x_UsageType": "data", "BilledCost": "300.00"},
            {**manual, "ServiceName": "Labeling", "x_UsageType": "", "BilledCost": "12.50"},
            {**manual, "ServiceName": "Cloud Storage", "x_UsageType": "", "BilledCost": "4.00"},
        ],
    )
    project.write_config('[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n')
    assert run("ingest").exit_code == 0
    result = run("attribute")
    assert result.exit_code == 0, result.stderr
    result = run("report", "--by", "category,service", "--format", "csv")
    got = {
        (r["service_name"], r["cost_category"]): Decimal(r["effective_cost"])
        for r in csv.DictReader(io.StringIO(result.stdout))
    }
    assert got == {
        ("Annotation vendor", "data"): Decimal("300.00"),
        ("Labeling", "other"): Decimal("12.50"),
        ("Cloud Storage", "storage"): Decimal("4.00"),
    }
