-- Experiments' realized EffectiveCost by phase (NULL: 'unknown'), cost category, spend (the provider table's:
-- 'llm_api' for a model API's bill, else 'cloud', a provider it does not know included) and currency, in one
-- pass over the allocations, with the part that is cloud compute: an off-cloud ledger (provider manual) or a
-- model API bought no GPU hours. Grain: experiment x phase x category x spend x currency.
-- Parameters: $ids (list of experiment ids). The ids filter as a list (list_contains), not a semi-join, so
-- the filter reaches the labels of the view's cells (allocation_tuples) before they meet their kinds.
-- Reads the allocations by day (the view `allocation_days`: the stored shares and the cells of the
-- charges placed whole), the same sums as the view `allocations` without joining every charge.
SELECT a.experiment_id, coalesce(a.phase, 'unknown') AS phase, a.cost_category,
       coalesce(p.spend, 'cloud') AS spend, a.currency,
       sum(a.effective_cost) AS realized,
       sum(a.effective_cost) FILTER (
           WHERE a.cost_category = 'compute' AND a.provider <> 'manual' AND coalesce(p.spend, 'cloud') = 'cloud'
       ) AS cloud_compute
FROM allocation_days a
LEFT JOIN providers p ON p.provider = a.provider
WHERE list_contains($ids, a.experiment_id)
GROUP BY ALL
ORDER BY ALL
