-- Experiments' resource windows that used GPUs, from the log, for their logged GPU hours.
-- Grain: window. Parameters: $ids (list of experiment ids).
SELECT experiment_id, coalesce(phase, 'unknown'), gpus, started_at, ended_at
FROM experiment_resources
WHERE gpus > 0 AND experiment_id IN (SELECT unnest($ids))
ORDER BY ALL
