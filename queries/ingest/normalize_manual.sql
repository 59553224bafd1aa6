-- Normalise off-cloud ledger rows (temp table manual_rows) into charges; they are usage the ledger
-- already attributes (its labels are its tags: rule `tag`). Grain: one row per ledger line.
-- Parameters: $source, $file.
SELECT
    $source AS source,
    'manual' AS provider,
    strftime(start_at, '%Y-%m') AS billing_period,
    date_trunc('month', start_at) AS billing_period_start,
    date_trunc('month', start_at) + INTERVAL 1 MONTH AS billing_period_end,
    start_at AS charge_period_start,
    end_at AS charge_period_end,
    $source AS billing_account_id,              -- a ledger is its own account: FOCUS requires one
    NULL AS sub_account_id,
    'Usage' AS charge_category,
    NULL AS charge_class,
    'Manual' AS line_item_type,
    coalesce(vendor, 'manual ledger') AS service_name,
    category AS service_category,
    NULL AS resource_id,
    NULL AS resource_type,
    NULL AS region_id,
    reference AS sku_id,
    category AS usage_type,
    NULL AS consumed_quantity,
    NULL AS consumed_unit,
    currency AS billing_currency,
    amount AS billed_cost,
    amount AS effective_cost,
    amount AS list_cost,
    NULL AS commitment_id,
    'Standard' AS pricing_category,
    tags,
    $file AS source_file,
    line AS source_row,
    coalesce(reference, description, CAST(line AS VARCHAR)) AS row_identity
FROM manual_rows
