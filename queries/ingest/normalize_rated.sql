-- Normalise the priced usage rows (temp table rated_rows with a price) into charges: usage the provider
-- reported without a cost, priced by trainledger's rate card (SPEC §5). The mark that it is not the
-- provider's invoice travels in every output: the service name ends in "(priced by trainledger rate card)"
-- (finance CSV, reports, post-mortem) and the line item type is "trainledger rate card" (FOCUS
-- ChargeDescription); the invoice id stays NULL. Grain: one row per priced usage row.
-- Parameters: $source, $provider.
SELECT
    $source AS source,
    $provider AS provider,
    strftime(start_at, '%Y-%m') AS billing_period,
    date_trunc('month', start_at) AS billing_period_start,
    date_trunc('month', start_at) + INTERVAL 1 MONTH AS billing_period_end,
    start_at AS charge_period_start,
    end_at AS charge_period_end,
    coalesce(billing_account_id, $source) AS billing_account_id,
    sub_account_id,
    'Usage' AS charge_category,
    NULL AS charge_class,
    'trainledger rate card' AS line_item_type,
    service_name || ' (priced by trainledger rate card)' AS service_name,
    service_category,
    resource_id,
    resource_type,
    region_id,
    rate_key AS sku_id,
    rate_key || ' at ' || rtrim(rtrim(CAST(price AS VARCHAR), '0'), '.') || ' ' || currency || ' per ' || unit
        AS usage_type,
    quantity AS consumed_quantity,
    unit AS consumed_unit,
    currency AS billing_currency,
    cost AS billed_cost,
    cost AS effective_cost,
    cost AS list_cost,
    NULL AS commitment_id,
    'Standard' AS pricing_category,
    tags,
    file AS source_file,
    row_no AS source_row,
    row_identity
FROM rated_rows
WHERE price IS NOT NULL
