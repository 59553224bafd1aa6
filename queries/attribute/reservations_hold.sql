-- Before the charges on a reservation (temp table `shares`, from `attribute_reservations`) are split
-- again, the single allocation rules 1-3 gave each (a reference) becomes its share 0, kept for audit as
-- for any exact split (`attribute_allocate_placed`). Grain: charge. No parameters.
UPDATE allocation_refs
SET share_no = 0
WHERE share_no = 1
  AND charge_id IN (SELECT charge_id FROM shares)
  AND charge_id NOT IN (SELECT charge_id FROM allocation_refs WHERE share_no = 0)
