-- Normalise AWS CUR 2.0 line items (view cur2_raw_full) into FOCUS-shaped charges.
-- Grain: one row per line item. Parameters: $source (source name).
-- Costs arrive as doubles and become DECIMAL(38, 12) once, here
-- (double_to_money, schema.sql). EffectiveCost is AWS's amortised cost
-- by line item type, as in AWS's Well-Architected "amortized cost by charge type" CUR query: covered usage
-- at its Savings Plan / reservation effective cost, the Savings Plan recurring fee at its unused commitment,
-- RIFee at its unused amortised upfront plus unused recurring fee, SP negation and upfront fee and a Fee
-- carrying a reservation ARN at zero, everything else as billed. Legacy CUR arrives here renamed (aws_cur).
-- Text: CUR writes '' for "no value" (the Athena/parquet form of legacy CUR on every string column); every
-- text column becomes NULL when empty (text_or_null), as FOCUS and the outputs want.
WITH typed AS (
    SELECT
        *,
        double_to_money(line_item_unblended_cost) AS unblended,
        coalesce(double_to_money(pricing_public_on_demand_cost), 0) AS on_demand,
        coalesce(double_to_money(savings_plan_savings_plan_effective_cost), 0)
            AS sp_effective,
        coalesce(double_to_money(savings_plan_total_commitment_to_date), 0) AS sp_commitment,
        coalesce(double_to_money(savings_plan_used_commitment), 0) AS sp_used,
        coalesce(double_to_money(reservation_effective_cost), 0) AS ri_effective,
        coalesce(double_to_money(reservation_unused_amortized_upfront_fee_for_billing_period), 0)
            + coalesce(double_to_money(reservation_unused_recurring_fee), 0) AS ri_unused,
        utc_time(bill_billing_period_start_date) AS bp_start,
        utc_time(bill_billing_period_end_date) AS bp_end,
        nullif(trim(CAST(line_item_resource_id AS VARCHAR)), '') AS resource
    FROM cur2_raw_full
)
SELECT
    $source AS source,
    'aws' AS provider,
    strftime(bp_start, '%Y-%m') AS billing_period,
    bp_start AS billing_period_start,
    bp_end AS billing_period_end,
    utc_time(line_item_usage_start_date) AS charge_period_start,
    utc_time(line_item_usage_end_date) AS charge_period_end,
    text_or_null(bill_payer_account_id) AS billing_account_id,
    text_or_null(line_item_usage_account_id) AS sub_account_id,
    CASE
        WHEN line_item_line_item_type IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage',
                                          'SavingsPlanNegation') THEN 'Usage'
        WHEN line_item_line_item_type IN ('SavingsPlanUpfrontFee', 'SavingsPlanRecurringFee', 'RIFee', 'Fee')
            THEN 'Purchase'
        WHEN line_item_line_item_type = 'Tax' THEN 'Tax'
        WHEN line_item_line_item_type IN ('Credit', 'Discount', 'BundledDiscount', 'EdpDiscount',
                                          'PrivateRateDiscount', 'RiVolumeDiscount', 'DistributorDiscount')
            THEN 'Credit'
        -- FOCUS files a refund under what it refunds, which a CUR Refund row does not say; Adjustment is
        -- FOCUS's category for what fits no other. Unknown types land here too and are reported.
        ELSE 'Adjustment'
    END AS charge_category,
    CASE WHEN line_item_line_item_type = 'Refund' THEN 'Correction' END AS charge_class,
    line_item_line_item_type AS line_item_type,
    coalesce(nullif(product['product_name'], ''), nullif(product_servicecode, ''), line_item_product_code)
        AS service_name,
    text_or_null(product_product_family) AS service_category,
    resource AS resource_id,
    CASE
        WHEN resource LIKE 'i-%' THEN 'instance'
        WHEN resource LIKE 'vol-%' THEN 'volume'
        WHEN resource LIKE 'arn:aws:savingsplans:%' THEN 'savings-plan'
        WHEN line_item_product_code = 'AmazonS3' THEN 'bucket'
    END AS resource_type,
    coalesce(text_or_null(product_region_code), text_or_null(product['region'])) AS region_id,
    text_or_null(product_sku) AS sku_id,
    text_or_null(line_item_usage_type) AS usage_type,
    double_to_money(line_item_usage_amount) AS consumed_quantity,
    text_or_null(pricing_unit) AS consumed_unit,
    line_item_currency_code AS billing_currency,
    unblended AS billed_cost,
    CASE line_item_line_item_type
        WHEN 'SavingsPlanCoveredUsage' THEN sp_effective
        WHEN 'SavingsPlanRecurringFee' THEN sp_commitment - sp_used
        WHEN 'SavingsPlanNegation' THEN CAST(0 AS DECIMAL(38, 12))
        WHEN 'SavingsPlanUpfrontFee' THEN CAST(0 AS DECIMAL(38, 12))
        WHEN 'DiscountedUsage' THEN ri_effective
        WHEN 'RIFee' THEN ri_unused
        WHEN 'Fee' THEN CASE WHEN coalesce(reservation_reservation_a_r_n, '') <> ''
                             THEN CAST(0 AS DECIMAL(38, 12)) ELSE unblended END
        ELSE unblended
    END AS effective_cost,
    CASE WHEN line_item_line_item_type IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage')
         THEN on_demand ELSE CAST(0 AS DECIMAL(38, 12)) END AS list_cost,
    coalesce(nullif(savings_plan_savings_plan_a_r_n, ''), nullif(reservation_reservation_a_r_n, ''))
        AS commitment_id,
    CASE
        WHEN line_item_line_item_type IN ('SavingsPlanCoveredUsage', 'DiscountedUsage', 'SavingsPlanRecurringFee',
                                          'SavingsPlanUpfrontFee', 'RIFee', 'SavingsPlanNegation')
            THEN 'Committed'
        WHEN line_item_usage_type LIKE '%SpotUsage%' THEN 'Dynamic'
        WHEN line_item_line_item_type = 'Usage' THEN 'Standard'
    END AS pricing_category,
    coalesce(CAST(to_json(resource_tags) AS VARCHAR), '{}') AS tags,
    filename AS source_file,
    file_row_number + 1 AS source_row,
    identity_line_item_id AS row_identity,
    CAST(NULL AS VARCHAR) AS credits,
    CAST(NULL AS DOUBLE) AS currency_conversion_rate,
    text_or_null(bill_invoice_id) AS invoice_id
FROM typed
