-- Find the first Cloud Billing export row that cannot be trusted, before anything is written.
-- Grain: at most one row (file, row, column, problem). No parameters. Reads the view gcp_flat.
-- Times outside the years 2000-2099 are refused (bill_time: schema.sql), never made an invoice month.
-- One scan of the view (each scan reads the files again): each row's first problem by priority, then the
-- first of those by priority, file and row.
WITH checked AS (
    SELECT *,
           list_filter(credits, lambda c: c.amount IS NULL) AS bad_credits,
           CASE
               WHEN cost IS NULL THEN 1
               WHEN len(bad_credits) > 0 THEN 2
               WHEN currency IS NULL OR NOT regexp_full_match(currency, '[A-Z]{3}') THEN 3
               WHEN invoice_month IS NULL OR NOT regexp_full_match(invoice_month, '[0-9]{4}(0[1-9]|1[0-2])') THEN 4
               WHEN bill_time(export_time) IS NULL THEN 5
               WHEN bill_time(usage_start_time) IS NULL THEN 6
               WHEN bill_time(usage_end_time) IS NULL OR usage_end_time < usage_start_time THEN 7
           END AS priority
    FROM gcp_flat
),
first_bad AS (
    SELECT * FROM checked WHERE priority IS NOT NULL ORDER BY priority, source_file, source_row LIMIT 1
)
SELECT source_file AS file, source_row AS row_no,
       CASE priority
           WHEN 1 THEN 'cost' WHEN 2 THEN 'credits.amount' WHEN 3 THEN 'currency' WHEN 4 THEN 'invoice.month'
           WHEN 5 THEN 'export_time' WHEN 6 THEN 'usage_start_time' ELSE 'usage_end_time'
       END AS column_name,
       CASE priority
           WHEN 1 THEN 'expected a finite number, got ' || coalesce('''' || cost_text || '''', 'nothing')
           WHEN 2 THEN 'expected a finite number, got ' || coalesce('''' || bad_credits[1].amount_text || '''', 'nothing')
           WHEN 3 THEN 'expected a 3-letter currency code, got ' || coalesce('''' || currency || '''', 'nothing')
           WHEN 4 THEN 'expected an invoice month YYYYMM, got ' || coalesce('''' || invoice_month || '''', 'nothing')
           WHEN 5 THEN 'expected a timestamp in 2000-2099, got ' || coalesce('''' || export_time_text || '''', 'nothing')
           WHEN 6 THEN 'expected a timestamp in 2000-2099, got '
               || coalesce('''' || usage_start_time_text || '''', 'nothing')
           ELSE 'expected a timestamp in 2000-2099 not before usage_start_time, got '
               || coalesce('''' || usage_end_time_text || '''', 'nothing')
       END AS problem
FROM first_bad
