-- The fast path for most of a big bill: every charge in scope that `placed_charges` places whole (by rules
-- 1-3, on the one run it lies under, or as idle/unattributed time) becomes its single allocation (share
-- 1), straight from the charges, without window functions. A charge a window boundary cuts, or several
-- runs share, is written as share 0: where rules 1-3 leave it before the exact split, which
-- `attribute_split_set` reads back (one pass over the bill, not two); the view `allocations` shows shares
-- from 1. Grain: charge. Parameters: $periods (list of YYYY-MM).
INSERT INTO allocation_rows
SELECT
    charge_id, CASE WHEN placement = 'split' THEN 0 ELSE 1 END,
    charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name,
                   charge_category, pricing_category, billing_currency),
    charge_period_start, charge_period_end, a_project, a_phase, a_method, a_experiment_id, cost_category, a_rule,
    a_reason, billed_cost, effective_cost, list_cost
FROM placed_charges($periods)
