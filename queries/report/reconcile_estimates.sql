-- An experiment's estimates by phase and category (a whole-phase estimate counts as compute, or as data
-- for the data phase), with where they came from. Grain: phase x category x currency.
-- Parameters: $id (experiment id).
SELECT phase, coalesce(category, CASE WHEN phase = 'data' THEN 'data' ELSE 'compute' END), currency,
       sum(amount), any_value(basis)
FROM estimates
WHERE experiment_id = $id
GROUP BY ALL
