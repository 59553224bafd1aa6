-- Before loading: the sum of a cost column's sizes (absolute values) over the staged files, as DOUBLE: a
-- bound, not money. Every total a report makes of these rows is at most this, so below 10^26 none of them
-- overflows DECIMAL(38, 12); `cost_sum_reached` runs only when this is not below.
-- Grain: one row. Parameters: none. Slots: {{view}} (the staged scan), {{column}} (the cost column).
SELECT sum(abs(TRY_CAST({{column}} AS DOUBLE)))
FROM {{view}}
