-- The experiments of the log with their start, for the site's experiments table (newest first).
-- Grain: experiment. Parameters: none.
SELECT experiment_id, started_at
FROM experiments
ORDER BY started_at DESC NULLS LAST, experiment_id
