-- With `shared = "proportional"`: drop the single allocations of the shared charges about to be spread
-- (temp table `spread_charges`), so `attribute_spread_allocate` writes them again as spread.
-- Grain: allocation row. No parameters.
DELETE FROM allocation_rows WHERE charge_id IN (SELECT charge_id FROM spread_charges)
