-- The shortest usage charge period among the allocations, in seconds: whether the bill is hourly or daily
-- (the default bucket of `report --shape`). Grain: one row. No parameters.
SELECT min(epoch(charge_period_end) - epoch(charge_period_start))
FROM allocations
WHERE charge_category = 'Usage' AND charge_period_end > charge_period_start
