-- The billing periods the bill holds: what `attribute` without --period recomputes.
-- Grain: billing period. No parameters.
SELECT DISTINCT billing_period FROM charges ORDER BY 1
