-- BilledCost and EffectiveCost per currency of the allocations of the periods attribution wrote, for the
-- run ledger. Grain: currency. Parameters: $periods (list of YYYY-MM).
-- Reads the tables behind the view `allocations`: the stored shares, and the charges placed whole summed
-- from their references joined to the charges' money alone (the view would join every tuple's labels too).
SELECT currency, sum(billed_cost), sum(effective_cost)
FROM (
    SELECT k.currency, a.billed_cost, a.effective_cost
    FROM allocation_rows a
    JOIN charge_kinds k USING (kind_id)
    WHERE a.share_no > 0 AND list_contains($periods, k.billing_period)
    UNION ALL
    SELECT c.billing_currency, c.billed_cost, c.effective_cost
    FROM allocation_refs r
    JOIN charges c USING (charge_id)
    WHERE r.share_no > 0 AND list_contains($periods, c.billing_period)
)
GROUP BY 1
ORDER BY 1
