-- The latest export_time among the staged export rows: the next watermark after a full pull.
-- Grain: one row. Parameters: none.
SELECT max(export_time) FROM staged_charges
