-- Realized cost by several sets of dimensions in one pass over the allocations (the site's pages: each
-- table is one set, summed in the warehouse, so a page holds aggregates only however large the month).
-- The allocations are first summed into cells alike in every column the sets read (the day of the charge
-- for time buckets; at 10M allocations about 300K cells), then the sets summed over the cells: a sum of
-- exact sums, so each set's figures are those of one sum over its allocations. The cells are summed from
-- the view `allocations`' own tables before the wide columns are joined on: the stored shares by their kind
-- and own columns (then the kind's columns), the charges placed whole by their tuple and the charge's
-- columns (then the tuple's labels), so a join meets cells, not every allocation (at 1M charges 0.34 ->
-- 0.10 s).
-- Every set keeps the currency (never mixed); `grouping_set` names a row's set: GROUPING() of the
-- dimension list, one bit per dimension summed over (the first dimension is the highest bit), so a NULL
-- that is a value (no project) is told from one that means "all".
-- Grain: one row per set x its dimensions' values x currency.
-- Parameters: none here. reports/realize.py, the one place that composes SQL, replaces the markers below
-- with column names from its allow-list (DIMENSIONS, the inputs of the derived dimensions, and the UTC day
-- and week buckets of charge_period_start), the cells with the derived dimensions asked for (waste,
-- commitment) and the sets; values it needs (waste's experiment lists) go in as parameters.
WITH shares AS (
    SELECT /*share_columns*/, sum(billed_cost) AS billed_cost, sum(effective_cost) AS effective_cost,
           sum(list_cost) AS list_cost
    FROM allocation_rows
    WHERE share_no > 0
    GROUP BY ALL
),
whole AS (
    SELECT /*whole_columns*/, billing_currency AS currency, sum(billed_cost) AS billed_cost,
           sum(effective_cost) AS effective_cost, sum(list_cost) AS list_cost
    FROM allocation_refs
    JOIN charges USING (charge_id)
    WHERE share_no > 0
    GROUP BY ALL
),
cells AS (
    SELECT /*cell_columns*/, currency, billed_cost, effective_cost, list_cost
    FROM shares JOIN charge_kinds USING (kind_id)
    UNION ALL
    SELECT /*cell_columns*/, currency, billed_cost, effective_cost, list_cost
    FROM whole JOIN allocation_tuples USING (tuple_id)
)
SELECT /*dimensions*/, currency, GROUPING(/*dimensions*/) AS grouping_set,
       sum(billed_cost) AS billed_cost, sum(effective_cost) AS effective_cost, sum(list_cost) AS list_cost
FROM /*allocations*/
GROUP BY GROUPING SETS (/*sets*/)
