-- Before loading: how many CUR line item identities (identity_line_item_id, identity_time_interval) appear
-- more than once in the files (view cur2_raw_full); one pass over 64-bit hashes, so a clean delivery is
-- read once here and `validate_line_items_unique` runs only when this finds something to name.
-- Grain: one row (repeated identities). Parameters: $only (YYYY-MM, or NULL), as in that query.
SELECT count(*)
FROM (
    SELECT hash(identity_line_item_id, identity_time_interval) AS h
    FROM cur2_raw_full
    WHERE CASE WHEN $only IS NULL THEN true  -- a CASE, so that the period is not worked out for every row
               ELSE strftime(utc_time(TRY_CAST(bill_billing_period_start_date AS TIMESTAMPTZ)), '%Y-%m') = $only END
    GROUP BY 1
    HAVING count(*) > 1
)
