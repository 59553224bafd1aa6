-- Find the first CUR 2.0 row that cannot be trusted, before anything is written.
-- Grain: at most one row (file, row, column, problem).
-- Parameters: $period (YYYY-MM of the partition, or NULL for files delivered without a manifest, whose
-- rows name their own periods), $currencies (ISO 4217 codes).
-- Times without a zone are UTC: AWS writes every CUR time in UTC (the session time zone is UTC). A time
-- outside the years 2000-2099 is refused (bill_time: schema.sql), never made a billing period.
-- Money columns must be finite and fit DECIMAL(38, 12) (a cost written with more than 12 decimal places is
-- rounded half-even at ingest, not refused: money, schema.sql); usage dates outside the billing period are kept
-- (corrections may refer to earlier usage), but the row's billing period must be the partition's.
-- One cheap pass over typed values picks the suspect rows (a superset of the bad ones); the exact checks
-- and their messages, which need the values as text, look at those rows only (fits_money: schema.sql).
WITH typed AS (
    SELECT
        filename AS file,
        file_row_number + 1 AS row_no,
        *,
        TRY_CAST(line_item_unblended_cost AS DOUBLE) AS unblended,
        bill_time(bill_billing_period_start_date) AS period_start,
        bill_time(bill_billing_period_end_date) AS period_end,
        bill_time(line_item_usage_start_date) AS usage_start,
        bill_time(line_item_usage_end_date) AS usage_end
    FROM cur2_raw_full
),
suspects AS MATERIALIZED (
    SELECT *
    FROM typed
    WHERE unblended IS NULL OR NOT fits_money(line_item_unblended_cost)
       OR line_item_currency_code IS NULL
       OR line_item_currency_code NOT IN (SELECT unnest(CAST($currencies AS VARCHAR[])))
       OR period_start IS NULL
       OR date_trunc('month', timezone('UTC', period_start))
          <> coalesce(strptime($period, '%Y-%m'), date_trunc('month', timezone('UTC', period_start)))
       OR period_end IS NULL OR period_end <= period_start
       OR usage_start IS NULL
       OR (line_item_usage_end_date IS NOT NULL AND (usage_end IS NULL OR usage_end < usage_start))
       OR identity_line_item_id IS NULL OR identity_line_item_id = ''
       OR NOT fits_money(pricing_public_on_demand_cost)
       OR NOT fits_money(savings_plan_savings_plan_effective_cost)
       OR NOT fits_money(savings_plan_total_commitment_to_date)
       OR NOT fits_money(savings_plan_used_commitment)
       OR NOT fits_money(reservation_effective_cost)
       OR NOT fits_money(reservation_unused_amortized_upfront_fee_for_billing_period)
       OR NOT fits_money(reservation_unused_recurring_fee)
       OR NOT fits_money(line_item_usage_amount)
),
checked AS (
    SELECT
        file,
        row_no,
        unblended,
        line_item_unblended_cost AS unblended_text,
        line_item_currency_code AS currency,
        period_start,
        bill_billing_period_start_date AS period_start_text,
        period_end,
        bill_billing_period_end_date AS period_end_text,
        usage_start,
        line_item_usage_start_date AS usage_start_text,
        usage_end,
        nullif(trim(CAST(line_item_usage_end_date AS VARCHAR)), '') AS usage_end_text,
        identity_line_item_id AS line_item_id
    FROM suspects
),
-- The optional money columns that become DECIMAL, one row per non-empty value.
money AS (
    SELECT file, row_no, column_name, value_text, TRY_CAST(value_text AS DOUBLE) AS value
    FROM (
        SELECT
            file,
            row_no,
            CAST(pricing_public_on_demand_cost AS VARCHAR) AS pricing_public_on_demand_cost,
            CAST(savings_plan_savings_plan_effective_cost AS VARCHAR) AS savings_plan_savings_plan_effective_cost,
            CAST(savings_plan_total_commitment_to_date AS VARCHAR) AS savings_plan_total_commitment_to_date,
            CAST(savings_plan_used_commitment AS VARCHAR) AS savings_plan_used_commitment,
            CAST(reservation_effective_cost AS VARCHAR) AS reservation_effective_cost,
            CAST(reservation_unused_amortized_upfront_fee_for_billing_period AS VARCHAR)
                AS reservation_unused_amortized_upfront_fee_for_billing_period,
            CAST(reservation_unused_recurring_fee AS VARCHAR) AS reservation_unused_recurring_fee,
            CAST(line_item_usage_amount AS VARCHAR) AS line_item_usage_amount
        FROM suspects
    ) UNPIVOT (value_text FOR column_name IN (
        pricing_public_on_demand_cost, savings_plan_savings_plan_effective_cost,
        savings_plan_total_commitment_to_date, savings_plan_used_commitment, reservation_effective_cost,
        reservation_unused_amortized_upfront_fee_for_billing_period, reservation_unused_recurring_fee,
        line_item_usage_amount))
    WHERE nullif(trim(value_text), '') IS NOT NULL
)
SELECT file, row_no, column_name, problem
FROM (
    SELECT file, row_no, 'line_item_unblended_cost' AS column_name,
           'expected a finite number, got ' || coalesce('''' || CAST(unblended_text AS VARCHAR) || '''', 'nothing')
               AS problem, 1 AS priority
    FROM checked WHERE unblended IS NULL OR NOT isfinite(unblended)
    UNION ALL
    SELECT file, row_no, 'line_item_unblended_cost',
           'expected a cost below 10^26, got ''' || CAST(unblended_text AS VARCHAR) || '''', 1
    FROM checked WHERE isfinite(unblended) AND abs(unblended) >= 1e26
    UNION ALL
    SELECT file, row_no, column_name,
           'expected a finite number below 10^26 or nothing, got ''' || value_text || '''', 2
    FROM money WHERE value IS NULL OR NOT isfinite(value) OR abs(value) >= 1e26
    UNION ALL
    SELECT file, row_no, 'line_item_currency_code',
           'expected an ISO 4217 currency code such as USD, got ' || coalesce('''' || currency || '''', 'nothing'), 3
    FROM checked WHERE currency IS NULL OR NOT list_contains($currencies, currency)
    UNION ALL
    SELECT file, row_no, 'bill_billing_period_start_date',
           'expected a timestamp' || coalesce(' in billing period ' || $period, ' in 2000-2099') || ', got '
               || coalesce('''' || CAST(period_start_text AS VARCHAR) || '''', 'nothing'), 4
    FROM checked
    WHERE period_start IS NULL OR strftime(timezone('UTC', period_start), '%Y-%m') <> coalesce($period, strftime(timezone('UTC', period_start), '%Y-%m'))
    UNION ALL
    SELECT file, row_no, 'bill_billing_period_end_date',
           'expected a timestamp after the billing period start, got '
               || coalesce('''' || CAST(period_end_text AS VARCHAR) || '''', 'nothing'), 5
    FROM checked WHERE period_end IS NULL OR period_end <= period_start
    UNION ALL
    SELECT file, row_no, 'line_item_usage_start_date',
           'expected a timestamp in 2000-2099, got ' || coalesce('''' || CAST(usage_start_text AS VARCHAR) || '''', 'nothing'), 6
    FROM checked WHERE usage_start IS NULL
    UNION ALL
    SELECT file, row_no, 'line_item_usage_end_date',
           'expected a timestamp not before line_item_usage_start_date, got ''' || usage_end_text || '''', 7
    FROM checked WHERE usage_end_text IS NOT NULL AND (usage_end IS NULL OR usage_end < usage_start)
    UNION ALL
    SELECT file, row_no, 'identity_line_item_id', 'expected a line item id, got nothing', 8
    FROM checked WHERE line_item_id IS NULL OR line_item_id = ''
)
ORDER BY priority, file, row_no, column_name
LIMIT 1
