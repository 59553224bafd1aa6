-- Find the first FOCUS row that cannot be cast, before anything is written.
-- Grain: at most one row (file, row, column, problem). Parameters: $currencies (ISO 4217 codes).
-- Times must be ISO 8601 in UTC, as FOCUS requires of every date/time column (iso_utc_text: schema.sql);
-- without a zone they are UTC (the session time zone is UTC). Anything else (4/1/25, a local offset) and
-- any year outside 2000-2099 (bill_time) is refused, never made a billing period. A charge period outside
-- its billing period is kept: FOCUS corrections may refer to earlier usage. A cost is read as normalize_focus
-- reads it (money, schema.sql: more than 12 decimal places are rounded half-even, never refused).
WITH raw AS (
    SELECT filename AS file, file_row_number + 1 AS row_no, * EXCLUDE (filename, file_row_number)
    FROM focus_raw_full
),
typed AS (
    SELECT
        *,
        bill_time(CAST(BillingPeriodStart AS VARCHAR)) AS bp_start,
        bill_time(CAST(BillingPeriodEnd AS VARCHAR)) AS bp_end,
        bill_time(CAST(ChargePeriodStart AS VARCHAR)) AS cp_start,
        bill_time(CAST(ChargePeriodEnd AS VARCHAR)) AS cp_end
    FROM raw
)
SELECT file, row_no, column_name, problem
FROM (
    SELECT file, row_no, 'BilledCost' AS column_name,
           'expected a decimal number, got ' || coalesce('''' || CAST(BilledCost AS VARCHAR) || '''', 'nothing')
               AS problem, 1 AS priority
    FROM typed WHERE money(BilledCost) IS NULL
    UNION ALL
    SELECT file, row_no, 'EffectiveCost',
           'expected a decimal number, got ''' || CAST(EffectiveCost AS VARCHAR) || '''', 2
    FROM typed
    WHERE EffectiveCost IS NOT NULL AND money(EffectiveCost) IS NULL
    UNION ALL
    SELECT file, row_no, 'ListCost', 'expected a decimal number, got ''' || CAST(ListCost AS VARCHAR) || '''', 2.5
    FROM typed WHERE ListCost IS NOT NULL AND money(ListCost) IS NULL
    UNION ALL
    SELECT file, row_no, 'BillingCurrency',
           'expected an ISO 4217 currency code such as USD, got '
               || coalesce('''' || BillingCurrency || '''', 'nothing'), 4
    FROM typed WHERE BillingCurrency IS NULL OR NOT list_contains($currencies, BillingCurrency)
    UNION ALL
    SELECT file, row_no, column_name,
           'expected an ISO 8601 time in UTC such as 2026-11-01T00:00:00Z (years 2000-2099), got '
               || coalesce('''' || value || '''', 'nothing') AS problem, 5 + column_order / 10
    FROM (
        SELECT file, row_no, 'BillingPeriodStart' AS column_name, CAST(BillingPeriodStart AS VARCHAR) AS value,
               bp_start AS parsed, true AS required, 0 AS column_order
        FROM typed
        UNION ALL
        SELECT file, row_no, 'BillingPeriodEnd', CAST(BillingPeriodEnd AS VARCHAR), bp_end, true, 1 FROM typed
        UNION ALL
        SELECT file, row_no, 'ChargePeriodStart', CAST(ChargePeriodStart AS VARCHAR), cp_start, false, 2 FROM typed
        UNION ALL
        SELECT file, row_no, 'ChargePeriodEnd', CAST(ChargePeriodEnd AS VARCHAR), cp_end, false, 3 FROM typed
    )
    WHERE (value IS NULL AND required)
       OR (value IS NOT NULL AND (NOT iso_utc_text(value) OR parsed IS NULL))
    UNION ALL
    SELECT file, row_no, 'BillingPeriodEnd',
           'expected a timestamp after BillingPeriodStart, got ''' || CAST(BillingPeriodEnd AS VARCHAR) || '''', 6
    FROM typed WHERE bp_end <= bp_start
    UNION ALL
    SELECT file, row_no, 'ChargePeriodEnd',
           'expected a timestamp not before ChargePeriodStart, got ''' || CAST(ChargePeriodEnd AS VARCHAR) || '''', 8
    FROM typed WHERE cp_end < cp_start
    UNION ALL
    SELECT file, row_no, 'ChargeCategory',
           'expected one of Usage, Purchase, Tax, Credit, Adjustment, got '
               || coalesce('''' || ChargeCategory || '''', 'nothing'), 9
    FROM typed WHERE ChargeCategory IS NULL
        OR ChargeCategory NOT IN ('Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment')
    UNION ALL
    SELECT file, row_no, 'Tags', 'expected a JSON object, got ''' || left(CAST(Tags AS VARCHAR), 60) || '''', 10
    FROM typed WHERE Tags IS NOT NULL AND (NOT json_valid(CAST(Tags AS VARCHAR))
        OR json_type(CAST(Tags AS VARCHAR)) <> 'OBJECT')
    UNION ALL
    -- FOCUS 1.3's JSON columns (FOCUS_Spec allocatedtags.md, allocatedmethoddetails.md, contractapplied.md):
    -- AllocatedTags is Key-Value Format like Tags, an object merged over them. AllocatedMethodDetails and
    -- ContractApplied are kept, never read for money: any JSON object or list (the spec's ContractApplied
    -- example shows a list of commitments), not text that is no JSON.
    SELECT file, row_no, column_name, 'expected ' || expected || ', got ''' || left(value, 60) || '''',
           10 + column_order / 10
    FROM (
        SELECT file, row_no, 'AllocatedTags' AS column_name, CAST(AllocatedTags AS VARCHAR) AS value,
               ['OBJECT'] AS kinds, 'a JSON object' AS expected, 1 AS column_order
        FROM typed
        UNION ALL
        SELECT file, row_no, 'AllocatedMethodDetails', CAST(AllocatedMethodDetails AS VARCHAR),
               ['OBJECT', 'ARRAY'], 'a JSON object or list', 2
        FROM typed
        UNION ALL
        SELECT file, row_no, 'ContractApplied', CAST(ContractApplied AS VARCHAR), ['OBJECT', 'ARRAY'],
               'a JSON object or list', 3
        FROM typed
    )
    WHERE value IS NOT NULL AND (NOT json_valid(value) OR NOT list_contains(kinds, json_type(value)))
)
ORDER BY priority, file, row_no, column_name
LIMIT 1
