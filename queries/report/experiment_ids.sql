-- Every experiment id the warehouse knows, and whether the experiment log names it (else only allocations
-- do, from a tag). Grain: experiment id. No parameters.
-- The allocations' ids are read from the tables behind the view `allocations`: the stored shares', and the
-- tuples of the cells of the charges placed whole, without joining every reference to its charge (a cell
-- whose charges a restatement replaced lasts until the next attribution, as a stored share does).
SELECT experiment_id, bool_or(logged) AS logged
FROM (
    SELECT experiment_id, TRUE AS logged FROM experiments
    UNION ALL
    SELECT DISTINCT experiment_id, FALSE AS logged
    FROM allocation_rows
    WHERE share_no > 0 AND experiment_id IS NOT NULL
    UNION ALL
    SELECT experiment_id, FALSE AS logged
    FROM allocation_tuples
    WHERE experiment_id IS NOT NULL AND tuple_id IN (SELECT tuple_id FROM allocation_cells)
)
GROUP BY experiment_id
ORDER BY experiment_id
