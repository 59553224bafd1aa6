-- Drop the stored shares of the periods about to be recomputed (the caller's transaction keeps them on
-- failure); their references go with `attribute_clear_refs`. Grain: allocation row.
-- Parameters: $periods (list of YYYY-MM).
DELETE FROM allocation_rows
WHERE kind_id IN (SELECT kind_id FROM charge_kinds WHERE list_contains($periods, billing_period))
