-- After loading: the first line item that appears twice (same id and interval) in the periods just loaded,
-- found in the charges themselves (the caller's transaction undoes the load). Grain: at most one row
-- (file, row, column, problem). Parameters: $source (source name), $periods (list of YYYY-MM).
-- 64-bit hashes of the charge ids find the suspects cheaply; only they are compared in full.
WITH loaded AS (
    SELECT charge_id, row_identity, source_file, source_row
    FROM charges
    WHERE source = $source AND list_contains($periods, billing_period)
),
suspects AS (
    SELECT hash(charge_id) AS h FROM loaded GROUP BY 1 HAVING count(*) > 1
)
SELECT source_file, source_row, 'identity_line_item_id',
       'line item ' || row_identity || ' appears more than once (first at row '
           || CAST(min(source_row) OVER (PARTITION BY charge_id) AS VARCHAR) || ')'
FROM loaded
WHERE hash(charge_id) IN (SELECT h FROM suspects)
QUALIFY count(*) OVER (PARTITION BY charge_id) > 1
   AND source_row > min(source_row) OVER (PARTITION BY charge_id)
ORDER BY source_file, source_row
LIMIT 1
