-- Remove one source's charges of one billing period before its restatement is inserted.
-- Grain: one source × period. Parameters: $source (source name), $period (YYYY-MM).
DELETE FROM charges WHERE source = $source AND billing_period = $period
