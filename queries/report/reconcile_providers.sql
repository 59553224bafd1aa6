-- The cloud providers experiments ran on: from the log's windows, and from their allocations (off-cloud
-- ledgers left out: they have no delivery lag). Grain: experiment x provider.
-- Parameters: $ids (list of experiment ids).
SELECT DISTINCT experiment_id, provider
FROM experiment_resources
WHERE provider IS NOT NULL AND experiment_id IN (SELECT unnest($ids))
UNION
SELECT DISTINCT experiment_id, provider
FROM allocations
WHERE provider <> 'manual' AND experiment_id IN (SELECT unnest($ids))
