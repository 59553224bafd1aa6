-- Before loading: the sum of each cost column's sizes (absolute values) over the staged files, as DOUBLE: a
-- bound, not money. Every total a report makes of these rows is at most this, so below 10^26 none of them
-- overflows DECIMAL(38, 12); `cost_sum_reached` runs only when one is not below. One scan for every column.
-- Grain: one row, a sum per cost column in the order given. Parameters: none.
-- Slots: {{view}} (the staged scan), {{sizes}} (sum(abs(TRY_CAST(column AS DOUBLE))) per cost column).
SELECT {{sizes}}
FROM {{view}}
