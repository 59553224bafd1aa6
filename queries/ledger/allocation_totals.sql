-- BilledCost and EffectiveCost per currency of the allocations of the periods attribution wrote, for the
-- run ledger. Grain: currency. Parameters: $periods (list of YYYY-MM).
SELECT currency, sum(billed_cost), sum(effective_cost)
FROM allocations
WHERE list_contains($periods, billing_period)
GROUP BY 1
ORDER BY 1
