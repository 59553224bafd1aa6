-- Experiments' realized EffectiveCost by phase (NULL: 'unknown'), cost category, spend ('llm_api': a model
-- API's bill, providers openai and anthropic; else 'cloud') and currency, in one pass over the allocations,
-- with the part that is cloud compute: an off-cloud ledger (provider manual) or a model API bought no GPU
-- hours. Grain: experiment x phase x category x spend x currency. Parameters: $ids (list of experiment ids).
SELECT experiment_id, coalesce(phase, 'unknown') AS phase, cost_category,
       CASE WHEN provider IN ('openai', 'anthropic') THEN 'llm_api' ELSE 'cloud' END AS spend, currency,
       sum(effective_cost) AS realized,
       sum(effective_cost) FILTER (
           WHERE cost_category = 'compute' AND provider NOT IN ('manual', 'openai', 'anthropic')
       ) AS cloud_compute
FROM allocations
WHERE experiment_id IN (SELECT unnest($ids))
GROUP BY ALL
ORDER BY ALL
