-- An experiment's realized cloud compute by phase in one currency: an off-cloud ledger's compute (an
-- LLM-judge API bill) bought no GPU hours. Grain: phase. Parameters: $id (experiment id), $currency.
SELECT coalesce(phase, 'unknown'), sum(effective_cost)
FROM allocations
WHERE experiment_id = $id AND cost_category = 'compute' AND rule <> 'manual' AND currency = $currency
GROUP BY 1
