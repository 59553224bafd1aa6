-- Services the category rules do not know (they fall to `other`), with their cost.
-- Grain: provider x service x usage type x currency. Parameters: $periods (list of YYYY-MM).
SELECT c.provider, c.service_name, c.usage_type, c.billing_currency AS currency,
       sum(c.effective_cost) AS effective_cost
FROM charges c
JOIN charge_categories cat
  ON cat.provider IS NOT DISTINCT FROM c.provider AND cat.service_name IS NOT DISTINCT FROM c.service_name
 AND cat.usage_type IS NOT DISTINCT FROM c.usage_type AND cat.charge_category IS NOT DISTINCT FROM c.charge_category
       AND cat.service_category IS NOT DISTINCT FROM c.service_category
WHERE list_contains($periods, c.billing_period) AND NOT cat.known
GROUP BY ALL
ORDER BY effective_cost DESC
