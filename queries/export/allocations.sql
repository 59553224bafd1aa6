-- Finance export: allocations of one billing period summed over the dimensions kept by --by.
-- Grain: one row per distinct combination of the kept dimensions (the others are NULL).
-- Parameters: $period (YYYY-MM). The dimension list replaces the marker below: only column names from a
-- fixed allow-list (reports/realize.py, the one place that composes SQL), never input values.
SELECT /*dimensions*/, sum(billed_cost), sum(effective_cost), sum(list_cost)
FROM allocations
WHERE billing_period = $period
GROUP BY ALL
ORDER BY ALL
