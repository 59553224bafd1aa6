-- With `shared = "proportional"`: drop the references of the shared charges about to be spread (temp table
-- `spread_charges`), so `attribute_spread_allocate` writes them again as spread. Grain: reference.
-- No parameters.
DELETE FROM allocation_refs WHERE charge_id IN (SELECT charge_id FROM spread_charges)
