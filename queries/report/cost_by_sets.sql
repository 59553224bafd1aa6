-- Realized cost by several sets of dimensions in one pass over the allocations (the site's pages: each
-- table is one set, summed in the warehouse, so a page holds aggregates only however large the month).
-- The allocations by day (the view `allocation_days`: the stored shares, and the cells attribution summed
-- the charges placed whole into) are first summed into cells alike in every column the sets read (the day
-- of the charge for time buckets; at 10M allocations about 300K cells), then the sets summed over the
-- cells: a sum of exact sums, so each set's figures are those of one sum over its allocations.
-- Every set keeps the currency (never mixed); `grouping_set` names a row's set: GROUPING() of the
-- dimension list, one bit per dimension summed over (the first dimension is the highest bit), so a NULL
-- that is a value (no project) is told from one that means "all".
-- Grain: one row per set x its dimensions' values x currency.
-- Parameters: none here. reports/realize.py, the one place that composes SQL, replaces the markers below
-- with column names from its allow-list (DIMENSIONS, the inputs of the derived dimensions, and the UTC day
-- and week buckets of charge_period_start), the cells with the derived dimensions asked for (waste,
-- commitment) and the sets; values it needs (waste's experiment lists) go in as parameters.
WITH cells AS (
    SELECT /*cell_columns*/, currency, sum(billed_cost) AS billed_cost, sum(effective_cost) AS effective_cost,
           sum(list_cost) AS list_cost
    FROM allocation_days
    GROUP BY ALL
)
SELECT /*dimensions*/, currency, GROUPING(/*dimensions*/) AS grouping_set,
       sum(billed_cost) AS billed_cost, sum(effective_cost) AS effective_cost, sum(list_cost) AS list_cost
FROM /*allocations*/
GROUP BY GROUPING SETS (/*sets*/)
