-- What each ingested source period was read as (version, rows, total), for attribution's fingerprint.
-- Grain: source x billing period, in a fixed order. No parameters.
SELECT source, billing_period, version, row_count, billed_total FROM ingest_state ORDER BY ALL
