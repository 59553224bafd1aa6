-- Usage reported without a cost that no [[rates]] entry prices (so not in any cost, never priced 0), by the
-- SKU or node and unit it needs a rate for. Grain: provider x source x key x unit.
-- Parameters: $periods (list of YYYY-MM).
SELECT provider, source, rate_key, unit, sum(usage_rows) AS usage_rows, sum(quantity) AS quantity,
       min(first_start) AS first_start, max(last_end) AS last_end
FROM unpriced_usage
WHERE list_contains($periods, billing_period)
GROUP BY ALL
ORDER BY provider, source, rate_key, unit
