-- Bad or conflicting labels with the cost they carry (never dropped: SPEC §3).
-- Grain: tag set x status x currency. Parameters: $periods (list of YYYY-MM).
SELECT ls.status, ls.problem, ls.tags, c.billing_currency AS currency, count(*) AS charges,
       sum(c.effective_cost) AS effective_cost, sum(c.billed_cost) AS billed_cost,
       min(c.resource_id) AS example_resource
FROM charges c JOIN label_sets ls ON ls.tags = c.tags
WHERE list_contains($periods, c.billing_period) AND ls.status IN ('unknown-label', 'conflict', 'partial')
GROUP BY ALL
ORDER BY effective_cost DESC, ls.tags
