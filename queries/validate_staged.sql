-- After normalising: the first line item that appears twice (same id and interval) in one period.
-- Grain: at most one row (file, row, column, problem). No parameters.
SELECT source_file, source_row, 'identity_line_item_id',
       'line item ' || row_identity || ' appears more than once (first at row '
           || CAST(min(source_row) OVER (PARTITION BY charge_id) AS VARCHAR) || ')'
FROM staged_charges
QUALIFY count(*) OVER (PARTITION BY charge_id) > 1
   AND source_row > min(source_row) OVER (PARTITION BY charge_id)
ORDER BY source_file, source_row
LIMIT 1
