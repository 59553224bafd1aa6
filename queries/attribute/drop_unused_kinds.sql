-- Drop the charge kinds no allocation names any more (after a period's charges changed): neither a stored
-- share nor a cell of charges placed whole. Grain: kind. No parameters.
DELETE FROM charge_kinds
WHERE kind_id NOT IN (SELECT DISTINCT kind_id FROM allocation_rows)
  AND kind_id NOT IN (SELECT DISTINCT kind_id FROM allocation_cells)
