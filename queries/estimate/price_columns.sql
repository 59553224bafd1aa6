-- The columns of the warehouse's price sheet, from which the estimator picks its GPU-type and per-GPU-hour
-- price columns (none: no price sheet). Grain: one row per column of table prices. Parameters: none.
SELECT column_name FROM information_schema.columns WHERE table_name = 'prices'
