-- Experiments' resource windows that used GPUs, from the log, for their logged GPU hours. A model API's
-- workspace or project (providers openai, anthropic) holds no GPUs: its `gpus` is the run's weight in the
-- day's split (README "LLM API spend"), so it is left out.
-- Grain: window. Parameters: $ids (list of experiment ids).
SELECT experiment_id, coalesce(phase, 'unknown'), gpus, started_at, ended_at
FROM experiment_resources
WHERE gpus > 0 AND provider IS DISTINCT FROM 'openai' AND provider IS DISTINCT FROM 'anthropic'
  AND experiment_id IN (SELECT unnest($ids))
ORDER BY ALL
