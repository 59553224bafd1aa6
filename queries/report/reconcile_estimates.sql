-- Experiments' estimates by phase, category and spend (a whole-phase estimate counts as compute, or as data
-- for the data phase; spend 'llm_api' for an LLM API's lines, else 'cloud'), with where they came from;
-- currencies in order, so an experiment's first is the one `reconcile` and `experiments` show.
-- Grain: experiment x phase x category x spend x currency. Parameters: $ids (list of experiment ids).
SELECT experiment_id, phase, coalesce(category, CASE WHEN phase = 'data' THEN 'data' ELSE 'compute' END),
       coalesce(spend, 'cloud'), currency, sum(amount), any_value(basis)
FROM estimates
WHERE experiment_id IN (SELECT unnest($ids))
GROUP BY ALL
ORDER BY experiment_id, currency, phase, 3, 4
