-- The charges that need the exact split by time windows (`placed_charges` says `split`), with the
-- columns `attribute_windows` and `attribute_allocate_whole` read. Few on any bill: a window boundary
-- inside the charge, or several runs sharing it. Grain: charge. Parameters: $periods (list of YYYY-MM).
CREATE OR REPLACE TEMP TABLE resolved AS
SELECT * EXCLUDE (placement, a_project, a_phase, a_method, a_experiment_id, a_rule, a_reason)
FROM placed_charges($periods)
WHERE placement = 'split'
