-- What attribution wrote for the periods, for its progress line: allocations and their billed cost, the
-- charges placed whole counted and summed from their cells. Grain: one row. Parameters: $periods (list of
-- YYYY-MM).
SELECT coalesce(sum(n), 0), coalesce(sum(billed_cost), 0)
FROM (
    SELECT count(*) AS n, sum(a.billed_cost) AS billed_cost
    FROM allocation_rows a
    JOIN charge_kinds k USING (kind_id)
    WHERE a.share_no > 0 AND list_contains($periods, k.billing_period)
    UNION ALL
    SELECT sum(c.charges), sum(c.billed_cost)
    FROM allocation_cells c
    JOIN charge_kinds k USING (kind_id)
    WHERE list_contains($periods, k.billing_period)
)
