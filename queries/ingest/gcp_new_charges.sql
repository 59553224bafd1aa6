-- The staged export rows (staged_charges) not already in the warehouse, by their row identity: an
-- overlapping pull reads rows again. Grain: one row per new charge. Parameters: none.
CREATE OR REPLACE TEMP TABLE gcp_new_charges AS
SELECT * EXCLUDE (export_time)
FROM staged_charges s
WHERE NOT EXISTS (SELECT 1 FROM charges c WHERE c.source = s.source AND c.row_identity = s.row_identity)
