-- What attribution wrote for the periods, for its progress line: allocations and their billed cost.
-- Grain: one row. Parameters: $periods (list of YYYY-MM).
SELECT count(*), coalesce(sum(billed_cost), 0)
FROM allocations
WHERE list_contains($periods, billing_period)
