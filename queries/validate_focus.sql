-- Find the first FOCUS row that cannot be cast, before anything is written.
-- Grain: at most one row (file, row, column, problem). No parameters.
WITH raw AS (
    SELECT filename AS file, file_row_number + 1 AS row_no, * EXCLUDE (filename, file_row_number)
    FROM focus_raw_full
)
SELECT file, row_no, column_name, problem
FROM (
    SELECT file, row_no, 'BilledCost' AS column_name,
           'expected a decimal number, got ' || coalesce('''' || CAST(BilledCost AS VARCHAR) || '''', 'nothing')
               AS problem, 1 AS priority
    FROM raw WHERE TRY_CAST(CAST(BilledCost AS VARCHAR) AS DECIMAL(38, 12)) IS NULL
    UNION ALL
    SELECT file, row_no, 'EffectiveCost',
           'expected a decimal number, got ''' || CAST(EffectiveCost AS VARCHAR) || '''', 2
    FROM raw
    WHERE EffectiveCost IS NOT NULL AND TRY_CAST(CAST(EffectiveCost AS VARCHAR) AS DECIMAL(38, 12)) IS NULL
    UNION ALL
    SELECT file, row_no, 'ListCost', 'expected a decimal number, got ''' || CAST(ListCost AS VARCHAR) || '''', 3
    FROM raw WHERE ListCost IS NOT NULL AND TRY_CAST(CAST(ListCost AS VARCHAR) AS DECIMAL(38, 12)) IS NULL
    UNION ALL
    SELECT file, row_no, 'BillingCurrency',
           'expected a 3-letter currency code, got ' || coalesce('''' || BillingCurrency || '''', 'nothing'), 4
    FROM raw WHERE BillingCurrency IS NULL OR NOT regexp_full_match(BillingCurrency, '[A-Z]{3}')
    UNION ALL
    SELECT file, row_no, 'BillingPeriodStart',
           'expected a timestamp, got ' || coalesce('''' || CAST(BillingPeriodStart AS VARCHAR) || '''', 'nothing'), 5
    FROM raw WHERE TRY_CAST(CAST(BillingPeriodStart AS VARCHAR) AS TIMESTAMPTZ) IS NULL
    UNION ALL
    SELECT file, row_no, 'ChargePeriodStart',
           'expected a timestamp, got ''' || CAST(ChargePeriodStart AS VARCHAR) || '''', 6
    FROM raw
    WHERE ChargePeriodStart IS NOT NULL AND TRY_CAST(CAST(ChargePeriodStart AS VARCHAR) AS TIMESTAMPTZ) IS NULL
    UNION ALL
    SELECT file, row_no, 'ChargeCategory',
           'expected one of Usage, Purchase, Tax, Credit, Adjustment, got '
               || coalesce('''' || ChargeCategory || '''', 'nothing'), 7
    FROM raw WHERE ChargeCategory IS NULL
        OR ChargeCategory NOT IN ('Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment')
    UNION ALL
    SELECT file, row_no, 'Tags', 'expected a JSON object, got ''' || left(CAST(Tags AS VARCHAR), 60) || '''', 8
    FROM raw WHERE Tags IS NOT NULL AND (NOT json_valid(CAST(Tags AS VARCHAR))
        OR json_type(CAST(Tags AS VARCHAR)) <> 'OBJECT')
)
ORDER BY priority, file, row_no
LIMIT 1
