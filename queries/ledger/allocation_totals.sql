-- BilledCost and EffectiveCost per currency of the allocations of the periods attribution wrote, for the
-- run ledger. Grain: currency. Parameters: $periods (list of YYYY-MM).
-- Reads the tables behind the view `allocation_days`: the stored shares, and the cells of the charges placed
-- whole, each with its kind's currency and period (the view would join every tuple's labels too).
SELECT currency, sum(billed_cost), sum(effective_cost)
FROM (
    SELECT k.currency, a.billed_cost, a.effective_cost
    FROM allocation_rows a
    JOIN charge_kinds k USING (kind_id)
    WHERE a.share_no > 0 AND list_contains($periods, k.billing_period)
    UNION ALL
    SELECT k.currency, c.billed_cost, c.effective_cost
    FROM allocation_cells c
    JOIN charge_kinds k USING (kind_id)
    WHERE list_contains($periods, k.billing_period)
)
GROUP BY 1
ORDER BY 1
