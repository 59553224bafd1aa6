-- The cloud providers experiments ran on, from their allocations (off-cloud ledgers left out: they have
-- no delivery lag); report/reconcile_providers adds those of the log's windows. The site takes the same
-- pairs from its cube. Grain: experiment x provider.
-- Parameters: $ids (list of experiment ids).
-- Reads the allocations by day (the view `allocation_days`: the stored shares and the cells of the
-- charges placed whole), the same sums as the view `allocations` without joining every charge.
SELECT DISTINCT experiment_id, provider
FROM allocation_days
WHERE provider <> 'manual' AND list_contains($ids, experiment_id)
