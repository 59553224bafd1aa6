-- The billing periods that have allocations: a monthly budget's periods, and nightly's export files.
-- Grain: billing period. No parameters.
-- The kinds of the stored shares and of the cells of the charges placed whole (tables behind the view
-- `allocation_days`), not every column of the view.
SELECT DISTINCT billing_period
FROM charge_kinds
WHERE kind_id IN (SELECT kind_id FROM allocation_rows WHERE share_no > 0)
   OR kind_id IN (SELECT kind_id FROM allocation_cells)
ORDER BY 1
