"""Seeded FOCUS 1.3 Cost and Usage files in the layouts of two public 1.3 samples, quirks included.

Tests never fetch the samples; these generators reproduce what was seen in them (read through the code
search index, December 2026):

- guymano/FOCUS-Sample-Data, ``FOCUS-1.3/focus_sample_costandusage_gcp_1000.csv`` (commit
  15c6ce4c70ce9dd3c3bf4fb62b5aec4874b8d761, synthetic, 1,000 rows): 65 columns led by the deprecated
  ``ProviderName``/``PublisherName`` beside ``ServiceProviderName``/``HostProviderName``; nulls as empty
  fields (``ChargeClass`` always empty); JSON in ``SkuPriceDetails``, ``ContractApplied`` (``{"Elements":
  [{"ContractId", "ContractCommitmentId", "ContractCommitmentAppliedCost"}]}``), ``AllocatedMethodDetails``
  (``{"Elements": [{"AllocatedRatio": 1, "UsageUnit", "UsageQuantity", "x_Strategy", "x_Basis"}]}``),
  ``AllocatedTags`` and ``Tags``; split cost allocation rows (``AllocatedMethodId`` ``split-even`` /
  ``split-proportional``) that each carry a whole shared-host hour for one GKE workload, with no origin
  row; a 10 % tax row per some usage rows, its pricing columns empty; unit prices with 10 decimals.
- beau-finopsorg/FOCUS-Sample-Data, ``FOCUS-1.3/focus_sample_costandusage.csv`` (commit
  3f801aaa17d3ee60af4e0a870c7f6184edc205e5, generated from the 1.3 requirements model): columns nearly
  alphabetical with ``AllocatedMethodDetails`` and a few others at the end; every text value double-quoted,
  numbers bare, nulls a bare ``NULL``; four providers (AWS, Microsoft, Google, Oracle) in one file; every
  row carries placeholder ``AllocatedMethodId-<n>`` / ``AllocatedResourceId-<n>`` and ``AllocatedTags``
  ``{}`` with ``AllocatedMethodDetails`` NULL; ``Tags`` written with ``", "`` separators; ``ChargeClass``
  ``Correction`` now and then; Purchase rows with EffectiveCost ``0``; float artefacts such as
  ``113.50003500000001``. In the real file BilledCost and ListCost carry such artefacts too (more than 12
  decimal places); here they are confined to ContractedCost, which trainledger does not read, so that these
  files test the 1.3 layout and not the money rule for long decimals.
"""

from __future__ import annotations

import csv
import json
import random
from decimal import Decimal
from pathlib import Path

GUYMANO_COLUMNS = [
    "ProviderName",
    "PublisherName",
    "ServiceProviderName",
    "HostProviderName",
    "InvoiceIssuerName",
    "InvoiceId",
    "BillingAccountId",
    "BillingAccountName",
    "BillingAccountType",
    "SubAccountId",
    "SubAccountName",
    "SubAccountType",
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "BilledCost",
    "EffectiveCost",
    "ListCost",
    "ContractedCost",
    "ListUnitPrice",
    "ContractedUnitPrice",
    "PricingCategory",
    "PricingQuantity",
    "PricingUnit",
    "PricingCurrency",
    "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice",
    "BillingCurrency",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ServiceName",
    "ServiceCategory",
    "ServiceSubcategory",
    "SkuId",
    "SkuMeter",
    "SkuPriceId",
    "SkuPriceDetails",
    "ResourceId",
    "ResourceName",
    "ResourceType",
    "RegionId",
    "RegionName",
    "AvailabilityZone",
    "CommitmentDiscountId",
    "CommitmentDiscountName",
    "CommitmentDiscountCategory",
    "CommitmentDiscountType",
    "CommitmentDiscountStatus",
    "CommitmentDiscountQuantity",
    "CommitmentDiscountUnit",
    "ContractApplied",
    "CapacityReservationId",
    "CapacityReservationStatus",
    "AllocatedMethodId",
    "AllocatedMethodDetails",
    "AllocatedResourceId",
    "AllocatedResourceName",
    "AllocatedTags",
    "Tags",
]

BEAU_COLUMNS = [
    "AllocatedMethodId",
    "AllocatedResourceId",
    "AllocatedResourceName",
    "AllocatedTags",
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingAccountType",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "CapacityReservationId",
    "CapacityReservationStatus",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "CommitmentDiscountCategory",
    "CommitmentDiscountId",
    "CommitmentDiscountName",
    "CommitmentDiscountQuantity",
    "CommitmentDiscountStatus",
    "CommitmentDiscountType",
    "CommitmentDiscountUnit",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ContractApplied",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "HostProviderName",
    "InvoiceIssuerName",
    "ListCost",
    "ListUnitPrice",
    "PricingCategory",
    "PricingCurrency",
    "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "RegionId",
    "RegionName",
    "ResourceId",
    "ResourceName",
    "ResourceType",
    "ServiceCategory",
    "ServiceName",
    "ServiceProviderName",
    "SkuId",
    "SkuMeter",
    "SkuPriceDetails",
    "SkuPriceId",
    "SubAccountId",
    "SubAccountName",
    "SubAccountType",
    "Tags",
    "AllocatedMethodDetails",
    "AvailabilityZone",
    "ChargeFrequency",
    "InvoiceId",
    "ServiceSubcategory",
    "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice",
]
BEAU_NUMBERS = {
    "BilledCost",
    "CommitmentDiscountQuantity",
    "ConsumedQuantity",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "ListCost",
    "ListUnitPrice",
    "PricingQuantity",
    "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice",
}


def _text(value: Decimal) -> str:
    """A decimal as the samples print it: plain, without trailing zeros."""
    return format(value.normalize(), "f")


def guymano_gcp(path: Path, rows: int = 120, seed: int = 1302) -> Path:
    """A GCP FOCUS 1.3 file in guymano's 65-column layout (see the module docstring)."""
    assert len(GUYMANO_COLUMNS) == 65
    rng = random.Random(seed)
    accounts = [
        ("01A2B3-C4D5E6-F70819", "INV-2026-05-F70819"),
        ("11C2D3-E4F506-A7B8C9", "INV-2026-05-A7B8C9"),
    ]
    projects = ["examplecorp-prod-481627", "examplecorp-data-739104", "examplecorp-sandbox-160942"]
    workloads = ["search", "checkout", "billing"]
    out: list[dict[str, str]] = []
    usage: list[dict[str, str]] = []
    while len(out) < rows:
        account, invoice = rng.choice(accounts)
        project = rng.choice(projects)
        hour = rng.randrange(0, 24 * 28)
        start = f"2026-05-{1 + hour // 24:02d}T{hour % 24:02d}:00:00Z"
        end = f"2026-05-{1 + (hour + 1) // 24:02d}T{(hour + 1) % 24:02d}:00:00Z"
        row = dict.fromkeys(GUYMANO_COLUMNS, "")
        row.update(
            ProviderName="Google Cloud",
            PublisherName="Google",
            ServiceProviderName="Google Cloud",
            HostProviderName="Google Cloud",
            InvoiceIssuerName="Google Cloud",
            InvoiceId=invoice,
            BillingAccountId=account,
            BillingAccountName="ExampleCorp Billing",
            BillingAccountType="Billing Account",
            SubAccountId=project,
            SubAccountName=project.split("-")[1],
            SubAccountType="Project",
            BillingPeriodStart="2026-05-01T00:00:00Z",
            BillingPeriodEnd="2026-06-01T00:00:00Z",
            ChargePeriodStart=start,
            ChargePeriodEnd=end,
            BillingCurrency="USD",
            PricingCurrency=rng.choice(["USD", "USD", "EUR"]),
            Tags=json.dumps(
                {
                    "environment": rng.choice(["dev", "staging", "prod"]),
                    "cost-center": "cc-1042",
                    "owner": "team-data",
                },
                separators=(",", ":"),
            ),
        )
        kind = rng.choice(["storage", "split", "split", "sql"])
        if kind == "storage":
            price, quantity = Decimal("0.018"), Decimal(rng.randint(10_000, 99_999_999)) / 10_000
            cost = price * quantity
            row.update(
                ChargeCategory="Usage",
                ChargeDescription="Standard storage",
                ChargeFrequency="Usage-Based",
                ServiceName="Cloud Storage",
                ServiceCategory="Storage",
                ServiceSubcategory="Object Storage",
                SkuPriceDetails='{"StorageClass":"Standard"}',
                ResourceId=f"//storage.googleapis.com/projects/{project}/buckets/bucket-{rng.getrandbits(32):08x}",
                ResourceType="Storage Bucket",
                PricingUnit="GB-Months",
                ConsumedUnit="GB-Months",
                ContractApplied=json.dumps(
                    {
                        "Elements": [
                            {
                                "ContractId": "CONTRACT-GCC-2026-0001",
                                "ContractCommitmentId": "CC-GCC-STORAGE-0002",
                                "ContractCommitmentAppliedCost": float(cost),
                            }
                        ]
                    },
                    separators=(",", ":"),
                ),
            )
        elif kind == "split":
            price, quantity = Decimal("0.134"), Decimal(rng.randint(1_000, 9_999)) / 10_000
            cost = price * quantity
            workload = rng.choice(workloads)
            cluster = f"gke-{rng.getrandbits(24):06x}"
            strategy = rng.choice(
                [("split-even", "Even", "Workloads"), ("split-proportional", "Proportional", "vCPUSeconds")]
            )
            row.update(
                ChargeCategory="Usage",
                ChargeDescription="Shared Compute Engine host cost allocated to workload",
                ChargeFrequency="Usage-Based",
                ServiceName="Compute Engine",
                ServiceCategory="Compute",
                ServiceSubcategory="Virtual Machines",
                SkuPriceDetails='{"InstanceType":"e2-standard-4","CoreCount":4,"x_Preemptible":"false"}',
                ResourceId=f"//compute.googleapis.com/projects/{project}/instances/shared-host-{rng.getrandbits(32):08x}",
                ResourceType="Compute Instance",
                AvailabilityZone="europe-west1-c",
                PricingUnit="Hours",
                ConsumedUnit="Hours",
                AllocatedMethodId=strategy[0],
                AllocatedMethodDetails=json.dumps(
                    {
                        "Elements": [
                            {
                                "AllocatedRatio": 1,
                                "UsageUnit": "Hours",
                                "UsageQuantity": float(quantity),
                                "x_Strategy": strategy[1],
                                "x_Basis": strategy[2],
                            }
                        ]
                    },
                    separators=(",", ":"),
                ),
                AllocatedResourceId=f"//container.googleapis.com/projects/{project}/clusters/{cluster}/workloads/{workload}",
                AllocatedResourceName=f"workload-{workload}",
                AllocatedTags=json.dumps(
                    {"workload": workload, "cost-center": "cc-3110"}, separators=(",", ":")
                ),
            )
        else:
            price, quantity = Decimal("0.2"), Decimal(1)
            cost = price * quantity
            row.update(
                ChargeCategory="Usage",
                ChargeDescription="Cloud SQL custom 4 vCPU",
                ChargeFrequency="Usage-Based",
                ServiceName="Cloud SQL",
                ServiceCategory="Databases",
                ServiceSubcategory="Relational Databases",
                SkuPriceDetails='{"InstanceType":"db-custom-4-16384","x_Engine":"PostgreSQL"}',
                ResourceId=f"//sqladmin.googleapis.com/projects/{project}/instances/sql-{rng.getrandbits(32):08x}",
                ResourceType="Cloud SQL Instance",
                PricingUnit="Hours",
                ConsumedUnit="Hours",
            )
        row.update(
            BilledCost=_text(cost),
            EffectiveCost=_text(cost),
            ListCost=_text(cost),
            ContractedCost=_text(cost),
            ListUnitPrice=f"{price:.10f}",
            ContractedUnitPrice=f"{price:.10f}",
            PricingCategory="Standard",
            PricingQuantity=f"{quantity:.4f}",
            ConsumedQuantity=f"{quantity:.4f}",
            PricingCurrencyContractedUnitPrice=f"{price:.10f}",
            PricingCurrencyEffectiveCost=_text(cost),
            PricingCurrencyListUnitPrice=f"{price:.10f}",
            SkuId=f"SKU-{rng.getrandbits(48):012x}",
            SkuMeter="Compute" if kind != "storage" else "Storage",
            SkuPriceId=f"SPRICE-{rng.getrandbits(48):012x}",
            ResourceName=row["ResourceId"].rsplit("/", 1)[-1],
            RegionId="europe-west1",
            RegionName="Belgium",
        )
        out.append(row)
        usage.append(row)
        if rng.random() < 0.3 and len(out) < rows:
            source = rng.choice(usage)
            tax = dict.fromkeys(GUYMANO_COLUMNS, "")
            for key in (
                "ProviderName",
                "PublisherName",
                "ServiceProviderName",
                "HostProviderName",
                "InvoiceIssuerName",
                "InvoiceId",
                "BillingAccountId",
                "BillingAccountName",
                "BillingAccountType",
                "SubAccountId",
                "SubAccountName",
                "SubAccountType",
                "BillingPeriodStart",
                "BillingPeriodEnd",
                "ChargePeriodStart",
                "ChargePeriodEnd",
                "BillingCurrency",
                "ServiceName",
                "ServiceCategory",
                "ServiceSubcategory",
                "Tags",
            ):
                tax[key] = source[key]
            amount = _text(Decimal(source["BilledCost"]) / 10)
            tax.update(
                ChargeCategory="Tax",
                ChargeDescription=f"Synthetic tax 10% on usage record {usage.index(source) + 1}: {source['ServiceName']}",
                ChargeFrequency="One-Time",
                BilledCost=amount,
                EffectiveCost=amount,
                ListCost=amount,
                ContractedCost=amount,
                PricingCurrency="USD",
                PricingCurrencyEffectiveCost=amount,
            )
            out.append(tax)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=GUYMANO_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(out)
    return path


def beau_mixed(path: Path, rows: int = 80, seed: int = 13) -> Path:
    """A four-provider FOCUS 1.3 file in beau-finopsorg's layout (see the module docstring)."""
    rng = random.Random(seed)
    providers = [
        ("AWS", "123456789012", "SunBird", "BillingAccount", "Amazon Elastic Compute Cloud", "Compute"),
        (
            "Microsoft",
            "8a93b2c1-1234-4abc-9def-0123456789ab",
            "Contoso Cloud",
            "BillingProfile",
            "Azure SQL Database",
            "Databases",
        ),
        ("Google", "01ABCD-2345EF-6789GH", "Helios Labs", "BillingAccount", "Cloud Functions", "Compute"),
        (
            "Oracle",
            "ocid1.tenancy.oc1..aaaa1234",
            "Meridian OCI",
            "Tenancy",
            "Oracle Object Storage",
            "Storage",
        ),
    ]
    lines = [",".join(f'"{c}"' for c in BEAU_COLUMNS)]
    for _ in range(rows):
        name, account, account_name, account_type, service, category = rng.choice(providers)
        day, hour = rng.randint(1, 30), rng.randint(0, 22)
        charge = rng.choice(["Usage", "Usage", "Usage", "Purchase", "Tax", "Adjustment"])
        quantity = Decimal(rng.randint(100, 50_000)) / 100
        price = Decimal(rng.randint(100, 50_000)) / 10_000
        billed = quantity * price
        values: dict[str, object] = dict.fromkeys(BEAU_COLUMNS)
        values.update(
            AllocatedMethodId=f"AllocatedMethodId-{rng.randint(1000, 9999)}",
            AllocatedResourceId=f"AllocatedResourceId-{rng.randint(1000, 9999)}",
            AllocatedResourceName=f"AllocatedResourceName-{rng.randint(1000, 9999)}",
            AllocatedTags="{}",
            BilledCost=billed,
            BillingAccountId=account,
            BillingAccountName=account_name,
            BillingAccountType=account_type,
            BillingCurrency="USD",
            BillingPeriodEnd="2024-10-01T00:00:00Z",
            BillingPeriodStart="2024-09-01T00:00:00Z",
            ChargeCategory=charge,
            ChargeClass="Correction" if rng.random() < 0.05 else None,
            ChargeDescription=f"{service} in somewhere",
            ChargePeriodEnd=f"2024-09-{day:02d}T{hour + 1:02d}:00:00Z",
            ChargePeriodStart=f"2024-09-{day:02d}T{hour:02d}:00:00Z",
            ConsumedQuantity=f"{quantity:.10f}" if charge == "Usage" else None,
            ConsumedUnit="Hours" if charge == "Usage" else None,
            # a double's text, as the sample prints it
            ContractedCost=float(billed) * 1.1,
            ContractedUnitPrice=price,
            EffectiveCost=Decimal(0) if charge == "Purchase" else billed,
            HostProviderName=name,
            InvoiceIssuerName=name,
            ListCost=billed * Decimal("1.25"),
            ListUnitPrice=price * Decimal("1.25"),
            PricingCategory=rng.choice(["Standard", "Committed", "Dynamic", "Other"]),
            PricingCurrency="USD",
            PricingQuantity=quantity,
            PricingUnit="Hours",
            ProviderName=name,
            PublisherName=name,
            ResourceId=f"res-{rng.getrandbits(40):010x}" if charge != "Tax" else None,
            ServiceCategory=category,
            ServiceName=service,
            ServiceProviderName=name,
            SubAccountId=f"sub-{rng.getrandbits(16):04x}",
            SubAccountName="Production",
            SubAccountType=account_type,
            Tags=None
            if rng.random() < 0.2
            else json.dumps({"team": rng.choice(["growth", "payments"]), "environment": "prod"}),
            ChargeFrequency="Usage-Based" if charge == "Usage" else "One-Time",
            InvoiceId=f"INV-202409-{rng.randint(10000, 99999)}",
            PricingCurrencyEffectiveCost=Decimal(0) if charge == "Purchase" else billed,
        )
        cells = []
        for column in BEAU_COLUMNS:
            value = values[column]
            if value is None:
                cells.append("NULL")
            elif column in BEAU_NUMBERS:
                cells.append(repr(value) if isinstance(value, float) else _text(Decimal(str(value))))
            else:
                cells.append('"' + str(value).replace('"', '""') + '"')
        lines.append(",".join(cells))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
