-- Find the first CUR 2.0 row that cannot be trusted, before anything is written.
-- Grain: at most one row (file, row, column, problem). Parameters: $period (YYYY-MM of the partition, or
-- NULL for files delivered without a manifest, whose rows name their own periods).
WITH checked AS (
    SELECT
        filename AS file,
        file_row_number + 1 AS row_no,
        TRY_CAST(line_item_unblended_cost AS DOUBLE) AS unblended,
        line_item_unblended_cost AS unblended_text,
        line_item_currency_code AS currency,
        TRY_CAST(bill_billing_period_start_date AS TIMESTAMPTZ) AS period_start,
        bill_billing_period_start_date AS period_start_text,
        TRY_CAST(line_item_usage_start_date AS TIMESTAMPTZ) AS usage_start,
        line_item_usage_start_date AS usage_start_text,
        identity_line_item_id AS line_item_id
    FROM cur2_raw_full
)
SELECT file, row_no, column_name, problem
FROM (
    SELECT file, row_no, 'line_item_unblended_cost' AS column_name,
           'expected a finite number, got ' || coalesce('''' || CAST(unblended_text AS VARCHAR) || '''', 'nothing')
               AS problem, 1 AS priority
    FROM checked WHERE unblended IS NULL OR NOT isfinite(unblended)
    UNION ALL
    SELECT file, row_no, 'line_item_currency_code',
           'expected a 3-letter currency code, got ' || coalesce('''' || currency || '''', 'nothing'), 2
    FROM checked WHERE currency IS NULL OR NOT regexp_full_match(currency, '[A-Z]{3}')
    UNION ALL
    SELECT file, row_no, 'bill_billing_period_start_date',
           'expected a timestamp' || coalesce(' in billing period ' || $period, '') || ', got '
               || coalesce('''' || CAST(period_start_text AS VARCHAR) || '''', 'nothing'), 3
    FROM checked
    WHERE period_start IS NULL OR strftime(timezone('UTC', period_start), '%Y-%m') <> coalesce($period, strftime(timezone('UTC', period_start), '%Y-%m'))
    UNION ALL
    SELECT file, row_no, 'line_item_usage_start_date',
           'expected a timestamp, got ' || coalesce('''' || CAST(usage_start_text AS VARCHAR) || '''', 'nothing'), 4
    FROM checked WHERE usage_start IS NULL
    UNION ALL
    SELECT file, row_no, 'identity_line_item_id', 'expected a line item id, got nothing', 5
    FROM checked WHERE line_item_id IS NULL OR line_item_id = ''
)
ORDER BY priority, file, row_no
LIMIT 1
