-- Before loading: the sum of each cost column's sizes (absolute values) over the staged files, as DOUBLE: a
-- bound, not money. Every total a report makes of these rows is at most this, so below 10^26 none of them
-- overflows DECIMAL(38, 12); `cost_sum_reached` runs only for a column whose sum is not below.
-- Grain: one row, one value per cost column, in the order given (one scan for all of them).
-- Parameters: none. Slots: {{view}} (the staged scan), {{sizes}} (per cost column c:
-- sum(abs(TRY_CAST(c AS DOUBLE))), staging.check_sums).
SELECT {{sizes}}
FROM {{view}}
