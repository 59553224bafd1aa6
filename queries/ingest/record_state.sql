-- Record what was ingested for one source's billing period: the version that tells an unchanged period,
-- its files, rows and billed total (NULL when it holds several currencies).
-- Grain: one row per source × period. Parameters: $source, $period (YYYY-MM), $version, $files (JSON
-- list), $rows, $total (DECIMAL or NULL), $at (UTC time of the ingest).
INSERT OR REPLACE INTO ingest_state VALUES ($source, $period, $version, $files, $rows, $total, $at)
