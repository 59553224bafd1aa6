-- Keep the usage rows of one billing period that no rate prices (temp table rated_rows without a price),
-- summed by what the rate card was asked for: never priced 0, reported by `labels`.
-- Grain: source x period x key x unit. Parameters: $source, $provider, $period.
INSERT INTO unpriced_usage
SELECT $source, $provider, strftime(start_at, '%Y-%m') AS billing_period, rate_key, unit, count(*),
       sum(quantity), min(start_at), max(end_at), first(file ORDER BY row_no), min(row_no)
FROM rated_rows
WHERE price IS NULL AND strftime(start_at, '%Y-%m') = $period
GROUP BY ALL
