-- Spark's checks/invariant_sums (see queries/checks/invariant_sums.sql for the rule): in one pass over each
-- table, the sum of a 64-bit hash of (charge id, billed, effective, list) over the charges in scope equals
-- the same sum over their allocations, a charge split into several allocations counting once with its sums.
-- Grain: one row (bill, allocated). Parameters: $periods (list of YYYY-MM).
-- Why an override: DuckDB sums its 64-bit hash() as HUGEINT; Spark's hash() is 32-bit and a sum of 64-bit
-- values overflows a long, so xxhash64 is summed as DECIMAL(38, 0).
WITH kinds AS (
    SELECT kind_id FROM charge_kinds WHERE array_contains(:periods, billing_period)
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
    WHERE r.share_no > 0 AND (c.charge_id IS NULL OR array_contains(:periods, c.billing_period))
)
SELECT
    (SELECT coalesce(sum(CAST(xxhash64(charge_id, billed_cost, effective_cost, list_cost) AS DECIMAL(38, 0))), 0)
     FROM charges WHERE array_contains(:periods, billing_period)) AS bill,
    (SELECT coalesce(sum(CAST(xxhash64(charge_id, billed_cost, effective_cost, list_cost) AS DECIMAL(38, 0))), 0)
     FROM allocated) AS allocated
