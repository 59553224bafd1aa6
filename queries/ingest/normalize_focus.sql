-- Normalise FOCUS 1.x rows (view focus_raw_full, text or typed) into charges.
-- Grain: one row per FOCUS row. Parameters: $source (source name).
-- Costs become DECIMAL(38, 12) from their text, rounded half-even to 12 places (money, schema.sql): no float
-- on the way. EffectiveCost and ListCost
-- default to BilledCost where a file leaves them empty.
WITH typed AS (
    SELECT
        *,
        money(BilledCost) AS billed,
        utc_time(CAST(BillingPeriodStart AS VARCHAR)) AS bp_start,
        utc_time(CAST(BillingPeriodEnd AS VARCHAR)) AS bp_end
    FROM focus_raw_full
)
SELECT
    $source AS source,
    CASE
        WHEN lower(ProviderName) IN ('aws', 'amazon web services') THEN 'aws'
        WHEN lower(ProviderName) IN ('google cloud', 'gcp', 'google') THEN 'gcp'
        ELSE coalesce(lower(ProviderName), 'focus')
    END AS provider,
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
    nullif(trim(CAST(ResourceId AS VARCHAR)), '') AS resource_id,
    text_or_null(ResourceName) AS resource_name,
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
    coalesce(CAST(Tags AS VARCHAR), '{}') AS tags,
    filename AS source_file,
    file_row_number + 1 AS source_row,
    CAST(file_row_number + 1 AS VARCHAR) AS row_identity,
    CAST(NULL AS VARCHAR) AS credits,
    CAST(NULL AS DOUBLE) AS currency_conversion_rate,
    text_or_null(InvoiceId) AS invoice_id
FROM typed
