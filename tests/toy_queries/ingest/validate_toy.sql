-- Find the first toy row whose amount is not a decimal number. Grain: at most one row (file, row,
-- column, problem). Parameters: none.
SELECT filename, file_row_number + 1, 'amount', 'expected a decimal number, got ''' || amount || ''''
FROM toy_raw
WHERE TRY_CAST(amount AS DECIMAL(38, 12)) IS NULL
ORDER BY filename, file_row_number
LIMIT 1
