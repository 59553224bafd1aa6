-- The fast path for most of a big bill: every charge in scope that `placed_charges` places whole (by rules
-- 1-3, on the one run it lies under, or as idle/unattributed time) becomes its single allocation, straight
-- from the charges, without window functions. Grain: charge. Parameters: $periods (list of YYYY-MM).
INSERT INTO allocation_rows
SELECT
    charge_id, 1,
    charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name,
                   charge_category, pricing_category, billing_currency),
    charge_period_start, charge_period_end, a_project, a_phase, a_method, a_experiment_id, cost_category, a_rule,
    a_reason, billed_cost, effective_cost, list_cost
FROM placed_charges($periods)
WHERE placement <> 'split'
