-- The part of each experiment's realized cost that trainledger priced from the [[rates]] card (usage the
-- provider reported without a cost; normalize_rated marks its service name), so the post-mortem can say
-- it is not the provider's invoice. Grain: experiment x currency. Parameters: $ids (list of experiment ids).
SELECT experiment_id, currency, sum(effective_cost) AS priced
FROM allocations
WHERE experiment_id IN (SELECT unnest($ids)) AND service_name LIKE '%(priced by trainledger rate card)'
GROUP BY ALL
