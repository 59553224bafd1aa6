-- Tag coverage: effective cost of the period(s) by the rule that placed it.
-- Grain: rule x currency. Parameters: $periods (list of YYYY-MM).
SELECT rule, currency, count(DISTINCT charge_id) AS charges, sum(effective_cost) AS effective_cost,
       sum(billed_cost) AS billed_cost
FROM allocations
WHERE list_contains($periods, billing_period)
GROUP BY ALL
ORDER BY effective_cost DESC, rule
