-- An experiment's resource windows that used GPUs, from the log, for its logged GPU hours.
-- Grain: window. Parameters: $id (experiment id).
SELECT coalesce(phase, 'unknown'), gpus, started_at, ended_at
FROM experiment_resources
WHERE experiment_id = $id AND gpus > 0
