-- Find the first row of Google's FOCUS export that cannot be trusted, before anything is written.
-- Grain: at most one row (file, row, column, problem). No parameters. Reads the view gcp_flat (gcp_focus.py).
-- Columns are named as in the export. Times outside the years 2000-2099 are refused (bill_time: schema.sql),
-- never made a billing period; ChargeCategory is compared case-insensitively (Google's 1.0 view wrote it
-- in lower case). One scan of the view (each scan reads the files again): each row's first problem by
-- priority, then the first of those by priority, file and row.
WITH checked AS (
    SELECT *,
           list_filter(credits, lambda c: c.amount IS NULL) AS bad_credits,
           CASE
               WHEN billed_cost IS NULL THEN 1
               WHEN effective_cost IS NULL AND effective_cost_text IS NOT NULL THEN 2
               WHEN list_cost IS NULL AND list_cost_text IS NOT NULL THEN 3
               WHEN len(bad_credits) > 0 THEN 4
               WHEN billing_currency IS NULL OR NOT regexp_full_match(billing_currency, '[A-Z]{3}') THEN 5
               WHEN charge_category IS NULL
                   OR lower(charge_category) NOT IN ('usage', 'purchase', 'tax', 'credit', 'adjustment') THEN 6
               WHEN bill_time(billing_period_start) IS NULL THEN 7
               WHEN bill_time(billing_period_end) IS NULL THEN 8
               WHEN bill_time(charge_period_start) IS NULL THEN 9
               WHEN bill_time(charge_period_end) IS NULL THEN 10
               WHEN bill_time(export_time) IS NULL THEN 11
               WHEN billing_period_end <= billing_period_start THEN 12
               WHEN charge_period_end < charge_period_start THEN 13
           END AS priority
    FROM gcp_flat
),
first_bad AS (
    SELECT * FROM checked WHERE priority IS NOT NULL ORDER BY priority, source_file, source_row LIMIT 1
)
SELECT source_file AS file, source_row AS row_no,
       CASE priority
           WHEN 1 THEN 'BilledCost' WHEN 2 THEN 'EffectiveCost' WHEN 3 THEN 'ListCost' WHEN 4 THEN 'x_Credits.Amount'
           WHEN 5 THEN 'BillingCurrency' WHEN 6 THEN 'ChargeCategory' WHEN 7 THEN 'BillingPeriodStart'
           WHEN 8 THEN 'BillingPeriodEnd' WHEN 9 THEN 'ChargePeriodStart' WHEN 10 THEN 'ChargePeriodEnd'
           WHEN 11 THEN 'x_ExportTime' WHEN 12 THEN 'BillingPeriodEnd' ELSE 'ChargePeriodEnd'
       END AS column_name,
       CASE priority
           WHEN 1 THEN 'expected a decimal number, got ' || coalesce('''' || billed_cost_text || '''', 'nothing')
           WHEN 2 THEN 'expected a decimal number, got ''' || effective_cost_text || ''''
           WHEN 3 THEN 'expected a decimal number, got ''' || list_cost_text || ''''
           WHEN 4 THEN 'expected a decimal number, got ' || coalesce('''' || bad_credits[1].amount_text || '''', 'nothing')
           WHEN 5 THEN 'expected a 3-letter currency code, got ' || coalesce('''' || billing_currency || '''', 'nothing')
           WHEN 6 THEN 'expected one of Usage, Purchase, Tax, Credit, Adjustment, got '
               || coalesce('''' || charge_category || '''', 'nothing')
           WHEN 12 THEN 'expected a timestamp after BillingPeriodStart, got ''' || billing_period_end_text || ''''
           WHEN 13 THEN 'expected a timestamp not before ChargePeriodStart, got ''' || charge_period_end_text || ''''
           ELSE 'expected a timestamp in 2000-2099, got ' || coalesce('''' || CASE priority
               WHEN 7 THEN billing_period_start_text WHEN 8 THEN billing_period_end_text
               WHEN 9 THEN charge_period_start_text WHEN 10 THEN charge_period_end_text ELSE export_time_text
           END || '''', 'nothing')
       END AS problem
FROM first_bad
