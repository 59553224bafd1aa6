-- Normalise toy rows (temp table toy_raw) into charges: one day of usage each, tagged with its project.
-- Grain: one row per file row. Parameters: $source (source name), $period (YYYY-MM, the file's).
SELECT
    $source AS source,
    'toy' AS provider,
    $period AS billing_period,
    CAST($period || '-01' AS TIMESTAMP) AS billing_period_start,
    CAST($period || '-01' AS TIMESTAMP) + INTERVAL 1 MONTH AS billing_period_end,
    CAST(day AS TIMESTAMP) AS charge_period_start,
    CAST(day AS TIMESTAMP) + INTERVAL 1 DAY AS charge_period_end,
    'toy-account' AS billing_account_id,
    'Usage' AS charge_category,
    'Usage' AS line_item_type,
    'Toy Compute' AS service_name,
    currency AS billing_currency,
    CAST(amount AS DECIMAL(38, 12)) AS billed_cost,
    CAST(amount AS DECIMAL(38, 12)) AS effective_cost,
    CAST(amount AS DECIMAL(38, 12)) AS list_cost,
    to_json(map {'project': project})::VARCHAR AS tags,
    filename AS source_file,
    file_row_number + 1 AS source_row
FROM toy_raw
