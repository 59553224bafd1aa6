-- One experiment as the log has it, for `reconcile`.
-- Grain: at most one row. Parameters: $id (experiment id, canonical).
SELECT experiment_id, project, method, status, started_at, ended_at, estimate, metrics
FROM experiments
WHERE experiment_id = $id
