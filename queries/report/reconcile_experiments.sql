-- Experiments as the log has them, for `reconcile` (one or many at once).
-- Grain: experiment, those of $ids the log names. Parameters: $ids (list of experiment ids, canonical).
SELECT experiment_id, project, method, status, started_at, ended_at, estimate, metrics
FROM experiments
WHERE experiment_id IN (SELECT unnest($ids))
