-- What the warehouse holds for one source's billing period: rows, currencies and their billed total
-- (the total is only meaningful in one currency; the caller never adds across currencies).
-- Grain: one row. Parameters: $source (source name), $period (YYYY-MM).
SELECT count(*), count(DISTINCT billing_currency), sum(billed_cost)
FROM charges
WHERE source = $source AND billing_period = $period
