-- Find the first row of Google's FOCUS export that cannot be trusted, before anything is written.
-- Grain: at most one row (file, row, column, problem). No parameters. Reads the view gcp_flat (gcp_focus.py).
-- Columns are named as in the export. Times outside the years 2000-2099 are refused (bill_time: schema.sql),
-- never made a billing period; ChargeCategory is compared case-insensitively (Google's 1.0 view wrote it
-- in lower case).
WITH credit_amounts AS (
    SELECT source_file, source_row, unnest(credits) AS c FROM gcp_flat
)
SELECT file, row_no, column_name, problem
FROM (
    SELECT source_file AS file, source_row AS row_no, 'BilledCost' AS column_name,
           'expected a decimal number, got ' || coalesce('''' || billed_cost_text || '''', 'nothing') AS problem,
           1 AS priority
    FROM gcp_flat WHERE billed_cost IS NULL
    UNION ALL
    SELECT source_file, source_row, 'EffectiveCost',
           'expected a decimal number, got ''' || effective_cost_text || '''', 2
    FROM gcp_flat WHERE effective_cost IS NULL AND effective_cost_text IS NOT NULL
    UNION ALL
    SELECT source_file, source_row, 'ListCost', 'expected a decimal number, got ''' || list_cost_text || '''', 3
    FROM gcp_flat WHERE list_cost IS NULL AND list_cost_text IS NOT NULL
    UNION ALL
    SELECT source_file, source_row, 'x_Credits.Amount',
           'expected a decimal number, got ' || coalesce('''' || c.amount_text || '''', 'nothing'), 4
    FROM credit_amounts WHERE c.amount IS NULL
    UNION ALL
    SELECT source_file, source_row, 'BillingCurrency',
           'expected a 3-letter currency code, got ' || coalesce('''' || billing_currency || '''', 'nothing'), 5
    FROM gcp_flat WHERE billing_currency IS NULL OR NOT regexp_full_match(billing_currency, '[A-Z]{3}')
    UNION ALL
    SELECT source_file, source_row, 'ChargeCategory',
           'expected one of Usage, Purchase, Tax, Credit, Adjustment, got '
               || coalesce('''' || charge_category || '''', 'nothing'), 6
    FROM gcp_flat
    WHERE charge_category IS NULL OR lower(charge_category) NOT IN ('usage', 'purchase', 'tax', 'credit', 'adjustment')
    UNION ALL
    SELECT file, row_no, column_name,
           'expected a timestamp in 2000-2099, got ' || coalesce('''' || value || '''', 'nothing'), 7 + column_order / 10
    FROM (
        SELECT source_file AS file, source_row AS row_no, 'BillingPeriodStart' AS column_name,
               billing_period_start_text AS value, billing_period_start AS parsed, 0 AS column_order
        FROM gcp_flat
        UNION ALL
        SELECT source_file, source_row, 'BillingPeriodEnd', billing_period_end_text, billing_period_end, 1 FROM gcp_flat
        UNION ALL
        SELECT source_file, source_row, 'ChargePeriodStart', charge_period_start_text, charge_period_start, 2
        FROM gcp_flat
        UNION ALL
        SELECT source_file, source_row, 'ChargePeriodEnd', charge_period_end_text, charge_period_end, 3 FROM gcp_flat
        UNION ALL
        SELECT source_file, source_row, 'x_ExportTime', export_time_text, export_time, 4 FROM gcp_flat
    )
    WHERE bill_time(parsed) IS NULL
    UNION ALL
    SELECT source_file, source_row, 'BillingPeriodEnd',
           'expected a timestamp after BillingPeriodStart, got ''' || billing_period_end_text || '''', 8
    FROM gcp_flat WHERE billing_period_end <= billing_period_start
    UNION ALL
    SELECT source_file, source_row, 'ChargePeriodEnd',
           'expected a timestamp not before ChargePeriodStart, got ''' || charge_period_end_text || '''', 9
    FROM gcp_flat WHERE charge_period_end < charge_period_start
)
ORDER BY priority, file, row_no, column_name
LIMIT 1
