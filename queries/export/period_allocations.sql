-- Whether a billing period has allocations to export (none: the period was never attributed).
-- Grain: one row. Parameters: $period (YYYY-MM).
-- Asks the tables behind the view `allocation_days` each for one row: the stored shares, then the cells
-- of the charges placed whole.
SELECT EXISTS (
    SELECT 1 FROM allocation_rows a JOIN charge_kinds k USING (kind_id)
    WHERE a.share_no > 0 AND k.billing_period = $period
) OR EXISTS (
    SELECT 1 FROM allocation_cells c JOIN charge_kinds k USING (kind_id)
    WHERE k.billing_period = $period
)
