-- Move an append-only source's watermark: every period it recorded carries the new version.
-- Grain: one source. Parameters: $version (export_time<=...), $source (source name).
UPDATE ingest_state SET version = $version WHERE source = $source
