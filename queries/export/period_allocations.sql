-- Whether a billing period has allocations to export (none: the period was never attributed).
-- Grain: one row. Parameters: $period (YYYY-MM).
SELECT count(*) FROM allocations WHERE billing_period = $period
