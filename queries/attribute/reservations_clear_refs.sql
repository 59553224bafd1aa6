-- The allocations by reference of the charges on a reservation (temp table `shares`) before
-- `attribute_allocate` writes their reservation shares: share 0 (where rules 1-3 left them) stays.
-- Grain: reference. No parameters.
DELETE FROM allocation_refs
WHERE share_no > 0 AND charge_id IN (SELECT charge_id FROM shares)
