-- What a budget's scope spent in one period and currency. A scope key left NULL does not narrow it.
-- Grain: one row. Parameters: $period (YYYY-MM), $currency, $project, $method, $experiment_id (canonical
-- values, or NULL).
-- Reads the allocations by day (the view `allocation_days`: the stored shares and the cells of the
-- charges placed whole), the same sums as the view `allocations` without joining every charge.
SELECT coalesce(sum(effective_cost), 0)
FROM allocation_days
WHERE billing_period = $period AND currency = $currency
  AND ($project IS NULL OR project = $project)
  AND ($method IS NULL OR method = $method)
  AND ($experiment_id IS NULL OR experiment_id = $experiment_id)
