-- Realized cost by several sets of dimensions in one pass over the allocations (the site's pages: each
-- table is one set, summed in the warehouse, so a page holds aggregates only however large the month).
-- Every set keeps the currency (never mixed); `grouping_set` names a row's set: GROUPING() of the
-- dimension list, one bit per dimension summed over (the first dimension is the highest bit), so a NULL
-- that is a value (no project) is told from one that means "all".
-- Grain: one row per set x its dimensions' values x currency.
-- Parameters: none here. reports/realize.py, the one place that composes SQL, replaces the markers below
-- with column names from its allow-list (DIMENSIONS, and the UTC day and week buckets of
-- charge_period_start), the allocations with the derived dimensions asked for (waste, commitment) and the
-- sets; values it needs (waste's experiment lists) go in as parameters.
SELECT /*dimensions*/, currency, GROUPING(/*dimensions*/) AS grouping_set,
       sum(billed_cost) AS billed_cost, sum(effective_cost) AS effective_cost, sum(list_cost) AS list_cost
FROM /*allocations*/
GROUP BY GROUPING SETS (/*sets*/)
