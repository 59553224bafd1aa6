-- Tag coverage: effective cost of the period(s) by the rule that placed it, and the rule's share of its
-- currency's cost. Grain: rule x currency. Parameters: $periods (list of YYYY-MM).
-- Share: of the cost before credits and refunds (allocation shares with a positive EffectiveCost), so it
-- stays within 0-100 % and adds up to 100 % per currency when credits or corrections are negative rows
-- (a shared SLA credit, a negated usage row); NULL when the currency has no positive cost.
WITH by_rule AS (
    SELECT rule, currency, count(DISTINCT charge_id) AS charges, sum(effective_cost) AS effective_cost,
           sum(billed_cost) AS billed_cost, sum(greatest(effective_cost, 0)) AS gross
    FROM allocations
    WHERE list_contains($periods, billing_period)
    GROUP BY ALL
)
SELECT rule, currency, charges, effective_cost, billed_cost,
       CAST(gross * 100 / nullif(sum(gross) OVER (PARTITION BY currency), 0) AS DECIMAL(38, 12)) AS share_pct
FROM by_rule
ORDER BY effective_cost DESC, rule
