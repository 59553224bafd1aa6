-- The export_time up to which every row of an append-only source is in the warehouse (NULL: never pulled).
-- Grain: one row. Parameters: $source (source name), $prefix (the version prefix of a watermark).
SELECT max(version) FROM ingest_state WHERE source = $source AND starts_with(version, $prefix)
