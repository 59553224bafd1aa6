-- What a budget's scope spent in one period and currency. A scope key left NULL does not narrow it.
-- Grain: one row. Parameters: $period (YYYY-MM), $currency, $project, $method, $experiment_id (canonical
-- values, or NULL).
SELECT coalesce(sum(effective_cost), 0)
FROM allocations
WHERE billing_period = $period AND currency = $currency
  AND ($project IS NULL OR project = $project)
  AND ($method IS NULL OR method = $method)
  AND ($experiment_id IS NULL OR experiment_id = $experiment_id)
