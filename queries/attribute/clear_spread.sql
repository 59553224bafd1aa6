-- With `shared = "proportional"`: drop the allocations of the shared charges about to be spread (temp
-- table `shares`, from `attribute_spread`), so `attribute_allocate` writes them again as spread.
-- Grain: allocation row. No parameters.
DELETE FROM allocation_rows WHERE charge_id IN (SELECT charge_id FROM shares)
