-- Drop the allocations by reference of the periods about to be recomputed, and those of charges no longer
-- in the warehouse (a restated period's old charges): every reference but those of charges of other
-- periods. Grain: reference. Parameters: $periods (list of YYYY-MM).
DELETE FROM allocation_refs
WHERE charge_id NOT IN (SELECT charge_id FROM charges WHERE NOT list_contains($periods, billing_period))
