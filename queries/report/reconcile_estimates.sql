-- Experiments' estimates by phase and category (a whole-phase estimate counts as compute, or as data for
-- the data phase), with where they came from; currencies in order, so an experiment's first is the one
-- `reconcile` and `experiments` show. Grain: experiment x phase x category x currency.
-- Parameters: $ids (list of experiment ids).
SELECT experiment_id, phase, coalesce(category, CASE WHEN phase = 'data' THEN 'data' ELSE 'compute' END),
       currency, sum(amount), any_value(basis)
FROM estimates
WHERE experiment_id IN (SELECT unnest($ids))
GROUP BY ALL
ORDER BY experiment_id, currency, phase, 3
