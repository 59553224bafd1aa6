"""What real FOCUS exports do that the specification does not say (issue 30: files from outside this
project's fixtures ingest exactly or are refused clearly). Each test writes a file with one real habit, cites
where it was seen, and checks the totals against the file read back by the csv module or pyarrow with exact
Decimal (or by hand).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from click.testing import Result

from conftest import Project

BOM = "\ufeff"

# The columns of Microsoft Cost Management's FOCUS 1.0 cost export, in its order (the FOCUS columns
# alphabetically, then Microsoft's x_ columns), as a FinOps hub's costdetails table holds them (public code
# read through the code search index, December 2026).
AZURE_FOCUS_COLUMNS = [
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingAccountType",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "CommitmentDiscountCategory",
    "CommitmentDiscountId",
    "CommitmentDiscountName",
    "CommitmentDiscountStatus",
    "CommitmentDiscountType",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "InvoiceIssuerName",
    "ListCost",
    "ListUnitPrice",
    "PricingCategory",
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
    "SkuId",
    "SkuPriceId",
    "SubAccountId",
    "SubAccountName",
    "SubAccountType",
    "Tags",
    "x_AccountId",
    "x_AccountName",
    "x_AccountOwnerId",
    "x_BilledCostInUsd",
    "x_BilledUnitPrice",
    "x_BillingAccountId",
    "x_BillingAccountName",
    "x_BillingExchangeRate",
    "x_BillingExchangeRateDate",
    "x_BillingProfileId",
    "x_BillingProfileName",
    "x_ContractedCostInUsd",
    "x_CostAllocationRuleName",
    "x_CostCenter",
    "x_CustomerId",
    "x_CustomerName",
    "x_EffectiveCostInUsd",
    "x_EffectiveUnitPrice",
    "x_InvoiceId",
    "x_InvoiceIssuerId",
    "x_InvoiceSectionId",
    "x_InvoiceSectionName",
    "x_ListCostInUsd",
    "x_PartnerCreditApplied",
    "x_PartnerCreditRate",
    "x_PricingBlockSize",
    "x_PricingCurrency",
    "x_PricingSubcategory",
    "x_PricingUnitDescription",
    "x_PublisherCategory",
    "x_PublisherId",
    "x_ResellerId",
    "x_ResellerName",
    "x_ResourceGroupName",
    "x_ResourceType",
    "x_ServicePeriodEnd",
    "x_ServicePeriodStart",
    "x_SkuDescription",
    "x_SkuDetails",
    "x_SkuIsCreditEligible",
    "x_SkuMeterCategory",
    "x_SkuMeterId",
    "x_SkuMeterName",
    "x_SkuMeterSubcategory",
    "x_SkuOfferId",
    "x_SkuOrderId",
    "x_SkuOrderName",
    "x_SkuPartNumber",
    "x_SkuRegion",
    "x_SkuServiceFamily",
    "x_SkuTerm",
    "x_SkuTier",
]
VM = "/subscriptions/0000-1111/resourcegroups/ml/providers/microsoft.compute/virtualmachines/gpu-vm-1"


def half_even(text: str) -> Decimal:
    with localcontext(prec=80):
        return Decimal(text).quantize(Decimal("1e-12"), rounding=ROUND_HALF_EVEN)


def ingest(run, project: Project, bill: Path) -> Result:
    project.write_config(f'[[sources]]\nname = "bill"\nkind = "focus"\nuri = "{bill}"\n')
    return run("ingest")


def charges(project: Project, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def azure_row(hour: int, cost: str) -> dict[str, str]:
    row = dict.fromkeys(AZURE_FOCUS_COLUMNS, "")
    row.update(
        BilledCost=cost,
        EffectiveCost=cost,
        ListCost=cost,
        x_BilledCostInUsd=cost,
        BillingAccountId="/providers/Microsoft.Billing/billingAccounts/1234",
        BillingCurrency="USD",
        BillingPeriodStart="2026-11-01T00:00:00Z",
        BillingPeriodEnd="2026-12-01T00:00:00Z",
        ChargePeriodStart=f"2026-11-03T{hour:02d}:00:00Z",
        ChargePeriodEnd=f"2026-11-03T{hour + 1:02d}:00:00Z",
        ChargeCategory="Usage",
        ProviderName="Microsoft",
        PublisherName="Microsoft",
        InvoiceIssuerName="Microsoft",
        ServiceName="Virtual Machines",
        ServiceCategory="Compute",
        ResourceId=VM,
        Tags=json.dumps({"cost-label": "qwen-coder-train-sft"}),
    )
    return row


def test_an_azure_export_with_a_second_byte_order_mark_before_its_first_row(run, project: Project) -> None:
    """Azure Cost Management's CSV exports start with a byte order mark and write another before the first
    data row (Azure/azure-sdk-for-net#34129), whose first column, BilledCost, then reads '\\ufeff0.000520...';
    lines end in CRLF, Tags is JSON quoted with doubled quotes, and costs are doubles printed with 18 places."""
    costs = ["0.000520833333333333", "12.345678901234567", "40.19"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=AZURE_FOCUS_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(azure_row(8 + hour, cost) for hour, cost in enumerate(costs))
    header, *rows = out.getvalue().splitlines(keepends=True)
    bill = project.root / "azure-focus.csv"
    bill.write_text(BOM + header + BOM + "".join(rows), encoding="utf-8", newline="")

    result = ingest(run, project, bill)

    assert result.exit_code == 0, result.stderr
    with bill.open(encoding="utf-8-sig", newline="") as handle:
        raw = [r["BilledCost"].lstrip(BOM) for r in csv.DictReader(handle)]
    assert raw == costs
    assert charges(project, "SELECT count(*), sum(billed_cost), min(provider), min(tags) FROM charges") == [
        (3, sum((half_even(c) for c in raw), Decimal(0)), "azure", '{"cost-label": "qwen-coder-train-sft"}')
    ]


def test_a_focus_table_read_back_from_athena_has_lowercase_column_names(run, project: Project) -> None:
    """Athena and AWS Glue lowercase every column name (docs.aws.amazon.com/athena/latest/ug/
    tables-databases-columns-names.html): an UNLOAD of a FOCUS table to parquet names Tags `tags`, still a
    map, which is read as JSON like AWS's own Tags map."""
    table = pa.table(
        {
            "billedcost": pa.array([12.5, 1.25]),
            "billingcurrency": ["USD", "USD"],
            "billingperiodstart": ["2026-11-01T00:00:00Z"] * 2,
            "billingperiodend": ["2026-12-01T00:00:00Z"] * 2,
            "chargecategory": ["Usage"] * 2,
            "providername": ["AWS"] * 2,
            "tags": pa.array(
                [[("cost-label", "qwen-coder-train-sft")], []], pa.map_(pa.string(), pa.string())
            ),
        }
    )
    bill = project.root / "focus-unload.parquet"
    pq.write_table(table, bill)

    result = ingest(run, project, bill)

    assert result.exit_code == 0, result.stderr
    read = pq.read_table(bill).to_pylist()
    assert charges(project, "SELECT billed_cost, tags FROM charges ORDER BY source_row") == [
        (Decimal(repr(r["billedcost"])), json.dumps(dict(r["tags"]), separators=(",", ":"))) for r in read
    ]


def test_timestamps_with_milliseconds_and_money_in_scientific_notation(run, project: Project) -> None:
    """OCI's usage data writes times with milliseconds (`2020-12-26T00:00:00.000Z`, the Usage API's
    timeUsageStarted as dralquinta/cost_report's README shows it), and AWS's anonymised CUR sample money in
    scientific notation (`9.984E-7`, ../shared/reference-data/aws-cur-sample/SOURCE.md), which a FOCUS file
    converted from it keeps."""
    bill = project.root / "focus.csv"
    columns = ["BilledCost", "BillingCurrency", "BillingPeriodStart", "BillingPeriodEnd", "ChargeCategory"]
    columns += ["ChargePeriodStart", "ChargePeriodEnd", "ProviderName"]
    period = ["2026-11-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z"]
    hour = ["2026-11-03T08:00:00.000Z", "2026-11-03T09:00:00.000Z"]
    with bill.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for cost in ("9.984E-7", "1.2e-05", "3.5"):
            writer.writerow([cost, "USD", *period, "Usage", *hour, "Oracle"])

    result = ingest(run, project, bill)

    assert result.exit_code == 0, result.stderr
    # By hand: 0.0000009984 + 0.000012 + 3.5
    assert charges(
        project, "SELECT sum(billed_cost), min(charge_period_start), min(provider) FROM charges"
    ) == [(Decimal("3.5000129984"), datetime(2026, 11, 3, 8, 0), "oci")]
