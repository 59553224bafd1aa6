-- What the estimator computed from an experiment's params (JSON), for implied GPU hours and MFU.
-- Grain: at most one row. Parameters: $id (experiment id).
SELECT detail FROM estimator_results WHERE experiment_id = $id
