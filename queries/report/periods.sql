-- The billing periods that have allocations: a monthly budget's periods, and nightly's export files.
-- Grain: billing period. No parameters.
-- Reads the tables behind the view `allocations`: the stored shares' kinds, and the charges placed whole
-- (their references joined to the charges' period alone, not to every column of the view).
SELECT billing_period FROM charge_kinds WHERE kind_id IN (SELECT kind_id FROM allocation_rows WHERE share_no > 0)
UNION
SELECT DISTINCT c.billing_period
FROM allocation_refs r
JOIN charges c USING (charge_id)
WHERE r.share_no > 0
ORDER BY 1
