-- The fast path for most of a big bill: every charge in scope that `placed_charges` places whole (by rules
-- 1-3, on the one run it lies under, or as idle/unattributed time) becomes its single allocation (share
-- 1) by reference: the charge's id and its tuple's id (macro allocation_tuple_id), no copy of its money,
-- times or kind (the view `allocations` reads them from `charges`; `attribute_tuples` writes the tuples).
-- A charge a window boundary cuts, or several runs share, is written as share 0: where rules 1-3 leave it
-- before the exact split, which `attribute_split_set` reads back (one pass over the bill, not two).
-- Grain: charge. Parameters: $periods (list of YYYY-MM).
INSERT INTO allocation_refs
SELECT
    charge_id, CASE WHEN placement = 'split' THEN 0 ELSE 1 END,
    allocation_tuple_id(a_project, a_phase, a_method, a_experiment_id, cost_category, a_rule, a_reason)
FROM placed_charges($periods)
