-- The files the charges of the periods were read from, by slot, with how many charges each holds: the
-- cells are summed a range of files at a time (attribution/allocations.py `sum_cells`).
-- Grain: file slot. Parameters: $periods (list of YYYY-MM).
SELECT charge_slot(charge_id) AS slot, count(*) AS charges
FROM charges
WHERE list_contains($periods, billing_period)
GROUP BY ALL
ORDER BY slot
