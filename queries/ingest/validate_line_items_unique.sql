-- Before loading: the first CUR line item that appears twice (same identity_line_item_id and
-- identity_time_interval, AWS's identity of a line item) in the files (view cur2_raw_full).
-- Grain: at most one row (file, row, column, problem). Parameters: $only (YYYY-MM: only that billing
-- period's rows count, for files without a manifest; NULL: all rows).
-- 64-bit hashes of the identities find the suspects cheaply; only they are compared in full.
WITH loaded AS (
    SELECT filename AS file, file_row_number + 1 AS row_no, identity_line_item_id, identity_time_interval,
           hash(identity_line_item_id, identity_time_interval) AS h
    FROM cur2_raw_full
    WHERE CASE WHEN $only IS NULL THEN true  -- a CASE, so that the period is not worked out for every row
               ELSE strftime(utc_time(TRY_CAST(bill_billing_period_start_date AS TIMESTAMPTZ)), '%Y-%m') = $only END
),
suspects AS (
    SELECT h FROM loaded GROUP BY 1 HAVING count(*) > 1
),
repeated AS (
    SELECT *, row_number() OVER (PARTITION BY identity_line_item_id, identity_time_interval ORDER BY file, row_no)
        AS nth,
        first_value(file) OVER (PARTITION BY identity_line_item_id, identity_time_interval ORDER BY file, row_no)
        AS first_file,
        first_value(row_no) OVER (PARTITION BY identity_line_item_id, identity_time_interval ORDER BY file, row_no)
        AS first_row
    FROM loaded
    WHERE h IN (SELECT h FROM suspects)
)
SELECT file, row_no, 'identity_line_item_id',
       'line item ' || identity_line_item_id || '@' || identity_time_interval || ' appears more than once (first at '
           || CASE WHEN first_file = file THEN '' ELSE first_file || ', ' END
           || 'row ' || CAST(first_row AS VARCHAR) || ')'
FROM repeated
WHERE nth > 1
ORDER BY file, row_no
LIMIT 1
