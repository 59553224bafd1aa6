-- Rows and BilledCost per currency of one source's billing period, for the run ledger: currencies are
-- reported, never added. Grain: currency. Parameters: $source (source name), $period (YYYY-MM, or NULL
-- for a source without periods).
SELECT billing_currency, count(*), sum(billed_cost)
FROM charges
WHERE source = $source AND billing_period IS NOT DISTINCT FROM $period
GROUP BY 1
ORDER BY 1
