-- Normalise example statement rows (view example_raw_full) into charges: usage, priced as billed, tagged
-- with the row's labels. Grain: one row per file row. Parameters: $source (source name), $period
-- (YYYY-MM, the file's).
SELECT
    $source AS source,
    provider_id(provider) AS provider,
    $period AS billing_period,
    CAST($period || '-01' AS TIMESTAMP) AS billing_period_start,
    CAST($period || '-01' AS TIMESTAMP) + INTERVAL 1 MONTH AS billing_period_end,
    CAST("start" AS TIMESTAMP) AS charge_period_start,
    CAST("end" AS TIMESTAMP) AS charge_period_end,
    'Usage' AS charge_category,
    service AS service_name,
    usage_type,
    currency AS billing_currency,
    money(amount) AS billed_cost,
    money(amount) AS effective_cost,
    money(amount) AS list_cost,
    CAST(labels AS VARCHAR) AS tags,
    filename AS source_file,
    file_row_number + 1 AS source_row
FROM example_raw_full
