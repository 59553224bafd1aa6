-- Every experiment id the warehouse knows, and whether the experiment log names it (else only allocations
-- do, from a tag). Grain: experiment id. No parameters.
SELECT experiment_id, bool_or(logged) AS logged
FROM (
    SELECT experiment_id, TRUE AS logged FROM experiments
    UNION ALL
    SELECT DISTINCT experiment_id, FALSE AS logged FROM allocations WHERE experiment_id IS NOT NULL
)
GROUP BY experiment_id
ORDER BY experiment_id
