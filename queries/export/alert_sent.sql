-- Whether a budget alert was already posted for this budget, period and threshold (each alerts once).
-- Grain: at most one row. Parameters: $budget (name), $period (YYYY-MM), $threshold (as threshold_key).
SELECT 1 FROM alerts_sent WHERE budget = $budget AND period = $period AND threshold = $threshold
