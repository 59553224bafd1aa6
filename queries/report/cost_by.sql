-- Realized cost by the dimensions `report --by` keeps: the time bucket first (with --granularity), the
-- kept columns, and the currency (never mixed), allocations summed over everything else.
-- Grain: one row per bucket x kept dimensions x currency.
-- Parameters: none here. reports/realize.py, the one place that composes SQL, replaces the markers below
-- with column names from its allow-list (DIMENSIONS), the allocations with the derived dimensions asked
-- for (waste, commitment), and the time and equality conditions, whose values go in as parameters.
SELECT /*dimensions*/, sum(billed_cost) AS billed_cost, sum(effective_cost) AS effective_cost,
       sum(list_cost) AS list_cost
FROM /*allocations*/
WHERE /*conditions*/
GROUP BY ALL
ORDER BY ALL
