-- Every experiment's method, status and metrics (JSON), for the cost-benefit table.
-- Grain: experiment. No parameters.
SELECT experiment_id, method, status, metrics FROM experiments
