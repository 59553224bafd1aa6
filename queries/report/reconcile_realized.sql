-- Experiments' realized EffectiveCost by phase (NULL: 'unknown'), cost category and currency, in one pass
-- over the allocations, with the part that is cloud compute: an off-cloud ledger's compute (an LLM-judge
-- API bill, provider manual) bought no GPU hours. Grain: experiment x phase x category x currency.
-- Parameters: $ids (list of experiment ids).
SELECT experiment_id, coalesce(phase, 'unknown') AS phase, cost_category, currency,
       sum(effective_cost) AS realized,
       sum(effective_cost) FILTER (WHERE cost_category = 'compute' AND provider <> 'manual') AS cloud_compute
FROM allocations
WHERE experiment_id IN (SELECT unnest($ids))
GROUP BY ALL
ORDER BY ALL
