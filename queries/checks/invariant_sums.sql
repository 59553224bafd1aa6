-- The allocation invariant (SPEC §4) for the charges with one allocation (almost all of a big bill), in
-- one pass over each table: the sum of a 64-bit hash of (charge id, billed, effective, list) over the
-- charges in scope equals the same sum over their allocations, where a charge split into several
-- allocations counts once with its sums. A charge missing, doubled, changed or without a bill makes the
-- two differ; the per-charge sums of split charges are checked exactly by `check_invariant`.
-- Grain: one row (bill, allocated). Parameters: $periods (list of YYYY-MM).
-- Reads the tables behind the view `allocations` (shares from 1): of a stored share only the period is
-- needed of its kind; an allocation by reference counts its charge's own money (a reference doubled or
-- missing makes the sums differ; so does a reference whose charge is not in the warehouse, counted with no
-- money whatever its period).
WITH kinds AS (
    SELECT kind_id FROM charge_kinds WHERE list_contains($periods, billing_period)
),
split AS (
    SELECT DISTINCT charge_id
    FROM allocation_rows
    WHERE kind_id IN (SELECT kind_id FROM kinds) AND share_no > 1
),
allocated AS (
    SELECT charge_id, billed_cost, effective_cost, list_cost
    FROM allocation_rows
    WHERE kind_id IN (SELECT kind_id FROM kinds) AND share_no > 0 AND charge_id NOT IN (SELECT charge_id FROM split)
    UNION ALL
    SELECT charge_id, sum(billed_cost), sum(effective_cost), sum(list_cost)
    FROM allocation_rows
    WHERE kind_id IN (SELECT kind_id FROM kinds) AND share_no > 0 AND charge_id IN (SELECT charge_id FROM split)
    GROUP BY charge_id
    UNION ALL
    SELECT r.charge_id, c.billed_cost, c.effective_cost, c.list_cost
    FROM allocation_refs r
    LEFT JOIN charges c USING (charge_id)
    WHERE r.share_no > 0 AND (c.charge_id IS NULL OR list_contains($periods, c.billing_period))
)
SELECT
    (SELECT coalesce(sum(hash(charge_id, billed_cost, effective_cost, list_cost)), 0)
     FROM charges WHERE list_contains($periods, billing_period)) AS bill,
    (SELECT coalesce(sum(hash(charge_id, billed_cost, effective_cost, list_cost)), 0) FROM allocated)
        AS allocated
