-- The billing periods that have allocations: a monthly budget's periods, and nightly's export files.
-- Grain: billing period. No parameters.
SELECT DISTINCT billing_period FROM allocations ORDER BY 1
