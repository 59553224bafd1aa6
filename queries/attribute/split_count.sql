-- How many charges `attribute_split_set` sent to the exact split by time windows. Grain: one row.
-- No parameters.
SELECT count(*) FROM resolved
