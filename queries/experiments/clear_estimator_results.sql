-- Forget what the estimator computed from each experiment's params, before it runs again.
-- Grain: experiment. No parameters.
DELETE FROM estimator_results
