-- Normalise FOCUS 1.x rows (view focus_rows, text or typed) into charges.
-- Grain: one row per FOCUS row that counts (focus_rows). Parameters: $source (source name).
-- Costs become DECIMAL(38, 12) from their text, rounded half-even to 12 places (money, schema/warehouse.sql):
-- no float on the way. EffectiveCost and ListCost default to BilledCost where a file leaves them empty.
-- The provider is the provider table's id for the file's ProviderName (schema/provider_id: Microsoft is
-- azure), 'focus' where the file names none. FOCUS 1.3's HostProviderName (whose infrastructure the
-- service runs on: MongoDB Atlas on AWS is aws; FOCUS_Spec hostprovidername.md, entity_identification.md) is
-- kept as host_provider, named the same way; NULL in files before 1.3 (PublisherName, the entity that made
-- the service, is no host).
-- FOCUS 1.3 allocated charges (AllocatedResourceId set) are charges of what they are allocated to, as a
-- pod's row is: that resource id and name, and their AllocatedTags over the origin's Tags (FOCUS_Spec
-- allocatedtags.md: the allocated charge's own tags, never the ones already in Tags). ContractApplied (the
-- contract commitments a charge drew on, MongoDB Atlas's credits) is kept as the charge's credits.
WITH typed AS (
    SELECT
        *,
        money(BilledCost) AS billed,
        utc_time(CAST(BillingPeriodStart AS VARCHAR)) AS bp_start,
        utc_time(CAST(BillingPeriodEnd AS VARCHAR)) AS bp_end
    FROM focus_rows
)
SELECT
    $source AS source,
    coalesce(provider_id(ProviderName), 'focus') AS provider,
    strftime(bp_start, '%Y-%m') AS billing_period,
    bp_start AS billing_period_start,
    bp_end AS billing_period_end,
    utc_time(CAST(ChargePeriodStart AS VARCHAR)) AS charge_period_start,
    utc_time(CAST(ChargePeriodEnd AS VARCHAR)) AS charge_period_end,
    CAST(BillingAccountId AS VARCHAR) AS billing_account_id,
    CAST(SubAccountId AS VARCHAR) AS sub_account_id,
    ChargeCategory AS charge_category,
    ChargeClass AS charge_class,
    ChargeCategory AS line_item_type,
    ServiceName AS service_name,
    ServiceCategory AS service_category,
    nullif(trim(CAST(coalesce(text_or_null(AllocatedResourceId), ResourceId) AS VARCHAR)), '') AS resource_id,
    CASE WHEN text_or_null(AllocatedResourceId) IS NULL THEN text_or_null(ResourceName)
         ELSE text_or_null(AllocatedResourceName) END AS resource_name,
    ResourceType AS resource_type,
    RegionId AS region_id,
    CAST(SkuId AS VARCHAR) AS sku_id,
    x_UsageType AS usage_type,
    TRY_CAST(CAST(ConsumedQuantity AS VARCHAR) AS DECIMAL(38, 12)) AS consumed_quantity,
    ConsumedUnit AS consumed_unit,
    BillingCurrency AS billing_currency,
    billed AS billed_cost,
    coalesce(money(EffectiveCost), billed) AS effective_cost,
    coalesce(money(ListCost), billed) AS list_cost,
    CAST(CommitmentDiscountId AS VARCHAR) AS commitment_id,
    PricingCategory AS pricing_category,
    CASE WHEN AllocatedTags IS NULL THEN coalesce(CAST(Tags AS VARCHAR), '{}')
         ELSE CAST(json_merge_patch(coalesce(CAST(Tags AS VARCHAR), '{}'), CAST(AllocatedTags AS VARCHAR)) AS VARCHAR)
    END AS tags,
    filename AS source_file,
    file_row_number + 1 AS source_row,
    CAST(file_row_number + 1 AS VARCHAR) AS row_identity,
    text_or_null(ContractApplied) AS credits,
    CAST(NULL AS DOUBLE) AS currency_conversion_rate,
    text_or_null(InvoiceId) AS invoice_id,
    provider_id(text_or_null(HostProviderName)) AS host_provider
FROM typed
