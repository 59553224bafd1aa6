-- Usage reported without a cost that no [[rates]] entry prices (so not in any cost, never priced 0), by the
-- SKU or node and unit it needs a rate for. Grain: provider x source x key x unit.
-- Parameters: $period (YYYY-MM, or NULL: every period, including one with no charge at all).
SELECT provider, source, rate_key, unit, sum(usage_rows) AS usage_rows, sum(quantity) AS quantity,
       min(first_start) AS first_start, max(last_end) AS last_end
FROM unpriced_usage
WHERE $period IS NULL OR billing_period = $period
GROUP BY ALL
ORDER BY provider, source, rate_key, unit
