-- LLM API spend that the source's mapping gives no labels (so unattributed), by the project / workspace
-- that caused it ('default': spend the provider reports without an id). Grain: provider x source x
-- resource x currency. Parameters: $periods (list of YYYY-MM).
SELECT c.provider, c.source, coalesce(c.resource_id, 'default') AS resource_id, c.resource_type,
       c.billing_currency AS currency, count(*) AS charges, sum(c.effective_cost) AS effective_cost,
       sum(c.billed_cost) AS billed_cost
FROM charges c JOIN label_sets ls ON ls.tags = c.tags
WHERE list_contains($periods, c.billing_period) AND usage_billed(c.provider) AND ls.status = 'untagged'
GROUP BY ALL
ORDER BY effective_cost DESC, resource_id
