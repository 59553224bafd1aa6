-- Find the first example statement row that cannot become a charge: a provider the provider table does
-- not know, an amount that is not a number, a currency that is not ISO 4217, labels that are not a JSON
-- object. Grain: at most one row (file, row, column, problem). Parameters: $currencies (ISO 4217 codes).
WITH problems AS (
    SELECT filename, file_row_number,
           CASE WHEN provider_id(provider) NOT IN (SELECT provider FROM providers) THEN 'provider'
                WHEN TRY_CAST(amount AS DECIMAL(38, 12)) IS NULL THEN 'amount'
                WHEN NOT list_contains($currencies, currency) THEN 'currency'
                WHEN json_type(TRY_CAST(labels AS JSON)) IS DISTINCT FROM 'OBJECT' THEN 'labels'
           END AS column_name,
           CASE WHEN provider_id(provider) NOT IN (SELECT provider FROM providers)
                    THEN 'expected a provider of the table, got ''' || provider || ''''
                WHEN TRY_CAST(amount AS DECIMAL(38, 12)) IS NULL
                    THEN 'expected a decimal number, got ''' || amount || ''''
                WHEN NOT list_contains($currencies, currency)
                    THEN 'expected an ISO 4217 currency code, got ''' || currency || ''''
                ELSE 'expected a JSON object, got ''' || labels || ''''
           END AS problem
    FROM example_raw_full
)
SELECT filename, file_row_number + 1, column_name, problem
FROM problems
WHERE column_name IS NOT NULL
ORDER BY filename, file_row_number
LIMIT 1
