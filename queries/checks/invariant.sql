-- The allocation invariant (SPEC §4): every charge in scope has allocations summing exactly to it,
-- billed, effective and list. Grain: violating charges, at most 5.
-- Parameters: $periods (list of YYYY-MM), $all (false: only the charges split into several allocations,
-- whose sums are worked out here; `check_invariant_sums` covers the others, and when it finds a
-- difference the caller asks again with true, to name the charges).
WITH checked AS (
    SELECT DISTINCT charge_id
    FROM allocations
    WHERE list_contains($periods, billing_period) AND ($all OR share_no > 1)
),
allocated AS (
    SELECT charge_id, sum(billed_cost) AS billed, sum(effective_cost) AS effective, sum(list_cost) AS list
    FROM allocations
    WHERE list_contains($periods, billing_period) AND charge_id IN (SELECT charge_id FROM checked)
    GROUP BY charge_id
)
SELECT c.charge_id, f.file, c.source_row, c.billed_cost, a.billed, c.effective_cost, a.effective
FROM charges c
LEFT JOIN allocated a USING (charge_id)
LEFT JOIN charge_files f ON f.slot = charge_slot(c.charge_id)
WHERE list_contains($periods, c.billing_period)
  AND ($all OR c.charge_id IN (SELECT charge_id FROM checked))
  AND (a.charge_id IS NULL OR a.billed <> c.billed_cost OR a.effective <> c.effective_cost
       OR a.list <> c.list_cost)
LIMIT 5
