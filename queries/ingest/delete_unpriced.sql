-- Forget a source's unpriced usage of one billing period before its rows are read again.
-- Grain: none (DML). Parameters: $source, $period.
DELETE FROM unpriced_usage WHERE source = $source AND billing_period = $period
