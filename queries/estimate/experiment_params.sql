-- A logged experiment's method and params (JSON text), as the last ingest loaded them (none: not loaded).
-- Grain: at most one row. Parameters: $id (the experiment id, canonical).
SELECT method, params FROM experiments WHERE experiment_id = $id
