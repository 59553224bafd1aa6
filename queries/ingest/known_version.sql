-- The version last ingested for one source's billing period (none: never ingested).
-- Grain: at most one row. Parameters: $source (source name), $period (YYYY-MM).
SELECT version FROM ingest_state WHERE source = $source AND billing_period = $period
