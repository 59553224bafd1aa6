-- The cloud providers an experiment ran on: from the log's windows, and from its allocations (off-cloud
-- ledgers left out: they have no delivery lag). Grain: provider. Parameters: $id (experiment id).
SELECT DISTINCT provider FROM experiment_resources WHERE experiment_id = $id AND provider IS NOT NULL
UNION
SELECT DISTINCT provider FROM allocations WHERE experiment_id = $id AND provider <> 'manual'
