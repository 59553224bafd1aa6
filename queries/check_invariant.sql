-- The allocation invariant (SPEC §4): every charge in scope has allocations summing exactly to it,
-- billed and effective. Grain: violating charges, at most 5. Parameters: $periods (list of YYYY-MM).
SELECT c.charge_id, c.billed_cost, a.billed, c.effective_cost, a.effective
FROM charges c
LEFT JOIN (
    SELECT charge_id, sum(billed_cost) AS billed, sum(effective_cost) AS effective, sum(list_cost) AS list
    FROM allocations WHERE list_contains($periods, billing_period) GROUP BY charge_id
) a USING (charge_id)
WHERE list_contains($periods, c.billing_period)
  AND (a.charge_id IS NULL OR a.billed <> c.billed_cost OR a.effective <> c.effective_cost
       OR a.list <> c.list_cost)
LIMIT 5
