-- The billing periods the warehouse holds charges of for one source (a ledger restates them all).
-- Grain: one row per period. Parameters: $source (source name).
SELECT DISTINCT billing_period FROM charges WHERE source = $source
