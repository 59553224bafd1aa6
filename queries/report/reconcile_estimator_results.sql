-- What the estimator computed from experiments' params (JSON), for implied GPU hours and MFU.
-- Grain: experiment, those of $ids it ran for. Parameters: $ids (list of experiment ids).
SELECT experiment_id, detail FROM estimator_results WHERE experiment_id IN (SELECT unnest($ids))
