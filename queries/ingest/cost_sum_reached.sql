-- The first row (in file and row order) at which the running sum of a cost column's sizes (absolute
-- values, as DOUBLE) reaches $bound: where a bill's totals stop fitting DECIMAL(38, 12).
-- Grain: at most one row (file, row). Parameters: $bound. Slots: {{view}} (the staged scan), {{column}}.
SELECT filename, row_no
FROM (
    SELECT filename, file_row_number + 1 AS row_no,
           sum(coalesce(abs(TRY_CAST({{column}} AS DOUBLE)), 0))
               OVER (ORDER BY filename, file_row_number ROWS UNBOUNDED PRECEDING) AS reached
    FROM {{view}}
)
WHERE reached >= $bound
ORDER BY filename, row_no
LIMIT 1
