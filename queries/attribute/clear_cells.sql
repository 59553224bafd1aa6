-- Drop the cells of the periods about to be summed again, and those of periods no longer in the warehouse:
-- every cell but those of other periods' kinds that still have charges. Grain: cell.
-- Parameters: $periods (list of YYYY-MM).
DELETE FROM allocation_cells
WHERE kind_id NOT IN (
    SELECT kind_id
    FROM charge_kinds
    WHERE NOT list_contains($periods, billing_period)
      AND billing_period IN (SELECT DISTINCT billing_period FROM charges)
)
