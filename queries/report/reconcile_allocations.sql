-- How many allocations name an experiment: one the log does not know may still carry cost by its tag.
-- Grain: one row. Parameters: $id (experiment id, canonical).
SELECT count(*) FROM allocations WHERE experiment_id = $id
