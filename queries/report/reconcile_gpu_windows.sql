-- Experiments' resource windows that used GPUs, from the log, for their logged GPU hours. A model API's
-- workspace or project (a provider whose spend is llm_api in the provider table) holds no GPUs: its `gpus`
-- is the run's weight in the day's split (README "LLM API spend"), so it is left out.
-- Grain: window. Parameters: $ids (list of experiment ids).
SELECT r.experiment_id, coalesce(r.phase, 'unknown'), r.gpus, r.started_at, r.ended_at
FROM experiment_resources r
LEFT JOIN providers p ON p.provider = r.provider
WHERE r.gpus > 0 AND p.spend IS DISTINCT FROM 'llm_api'
  AND r.experiment_id IN (SELECT unnest($ids))
ORDER BY ALL
