-- The files (or the BigQuery origin) the new export rows come from, for charge_files.
-- Grain: one row per file. Parameters: none.
SELECT DISTINCT source_file FROM gcp_new_charges
