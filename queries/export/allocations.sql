-- Finance export: allocations of one billing period summed over the dimensions kept by --by.
-- Grain: one row per distinct combination of the kept dimensions (the others are NULL).
-- Parameters: $period (YYYY-MM). The dimension list replaces the marker below: only column names from a
-- fixed allow-list (reports/realize.py, the one place that composes SQL), never input values, among the
-- export's columns (outputs/export.py CSV_COLUMNS).
-- Reads the allocations by day (the view `allocation_days`): the charges placed whole are the cells
-- attribution summed them into, so the export meets sums, not every charge. A sum of exact sums: the same
-- figures.
SELECT /*dimensions*/, sum(billed_cost), sum(effective_cost), sum(list_cost)
FROM allocation_days
WHERE billing_period = $period
GROUP BY ALL
ORDER BY ALL
