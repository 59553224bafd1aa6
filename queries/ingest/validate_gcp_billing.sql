-- Find the first Cloud Billing export row that cannot be trusted, before anything is written.
-- Grain: at most one row (file, row, column, problem). No parameters. Reads the view gcp_flat.
-- Times outside the years 2000-2099 are refused (bill_time: schema.sql), never made an invoice month.
WITH credit_amounts AS (
    SELECT source_file, source_row, unnest(credits) AS c FROM gcp_flat
)
SELECT file, row_no, column_name, problem
FROM (
    SELECT source_file AS file, source_row AS row_no, 'cost' AS column_name,
           'expected a finite number, got ' || coalesce('''' || cost_text || '''', 'nothing') AS problem,
           1 AS priority
    FROM gcp_flat WHERE cost IS NULL
    UNION ALL
    SELECT source_file, source_row, 'credits.amount',
           'expected a finite number, got ' || coalesce('''' || c.amount_text || '''', 'nothing'), 2
    FROM credit_amounts WHERE c.amount IS NULL
    UNION ALL
    SELECT source_file, source_row, 'currency',
           'expected a 3-letter currency code, got ' || coalesce('''' || currency || '''', 'nothing'), 3
    FROM gcp_flat WHERE currency IS NULL OR NOT regexp_full_match(currency, '[A-Z]{3}')
    UNION ALL
    SELECT source_file, source_row, 'invoice.month',
           'expected an invoice month YYYYMM, got ' || coalesce('''' || invoice_month || '''', 'nothing'), 4
    FROM gcp_flat WHERE invoice_month IS NULL OR NOT regexp_full_match(invoice_month, '[0-9]{4}(0[1-9]|1[0-2])')
    UNION ALL
    SELECT source_file, source_row, 'export_time',
           'expected a timestamp in 2000-2099, got ' || coalesce('''' || export_time_text || '''', 'nothing'), 5
    FROM gcp_flat WHERE bill_time(export_time) IS NULL
    UNION ALL
    SELECT source_file, source_row, 'usage_start_time',
           'expected a timestamp in 2000-2099, got ' || coalesce('''' || usage_start_time_text || '''', 'nothing'), 6
    FROM gcp_flat WHERE bill_time(usage_start_time) IS NULL
    UNION ALL
    SELECT source_file, source_row, 'usage_end_time',
           'expected a timestamp in 2000-2099 not before usage_start_time, got '
               || coalesce('''' || usage_end_time_text || '''', 'nothing'), 7
    FROM gcp_flat WHERE bill_time(usage_end_time) IS NULL OR usage_end_time < usage_start_time
)
ORDER BY priority, file, row_no
LIMIT 1
