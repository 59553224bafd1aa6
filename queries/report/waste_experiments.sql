-- Experiments with what re-run detection compares: project, method, params, status and start.
-- Grain: experiment. No parameters.
SELECT experiment_id, project, method, status, started_at, params
FROM experiments
ORDER BY experiment_id
