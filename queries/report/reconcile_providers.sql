-- The cloud providers experiments ran on, from the log's windows (report/reconcile_billed_providers adds
-- those of their allocations). Grain: experiment x provider.
-- Parameters: $ids (list of experiment ids).
SELECT DISTINCT experiment_id, provider
FROM experiment_resources
WHERE provider IS NOT NULL AND experiment_id IN (SELECT unnest($ids))
