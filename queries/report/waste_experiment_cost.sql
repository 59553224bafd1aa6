-- One experiment's status in the log and its realized effective cost in one currency, every rule
-- included (a failed run's waste). Grain: one row. Parameters: $experiment_id, $currency.
SELECT
    (SELECT status FROM experiments WHERE experiment_id = $experiment_id) AS status,
    coalesce(sum(effective_cost), 0) AS cost
FROM allocations
WHERE experiment_id = $experiment_id AND currency = $currency
