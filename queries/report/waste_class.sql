-- The hidden-cost class of an allocation (the `waste` dimension of `report`): an expression over allocation
-- columns, composed into the report query, first match wins: unused-commitment (reserved GPU capacity no run
-- used, rule `idle` with reason `unused-commitment`, and Purchase rows, whose effective cost is the unused
-- part of a Savings Plan or reservation; a run's share of a reserved-capacity fee, rule `time-window`, is
-- what the run used); idle (rule idle, or phase idle); rerun (a failed run that a later run of the same
-- project, method and params repeated: rework); failed (failed, aborted or cancelled, not repeated); shared;
-- unattributed; productive (everything else).
-- The lists are matched as IN subqueries (hash joins): list_contains per row took 44 s at 10M allocations
-- and 1,198 failed runs, this 0.9 s.
-- Grain: per allocation row (or per group of rows alike in rule, reason, phase, experiment and charge
-- category).
-- Parameters: $reruns, $failed (lists of experiment ids, from waste.outcomes).
CASE
    WHEN reason = 'unused-commitment' THEN 'unused-commitment'
    WHEN rule = 'idle' OR phase = 'idle' THEN 'idle'
    WHEN experiment_id IN (SELECT unnest($reruns::VARCHAR[])) THEN 'rerun'
    WHEN experiment_id IN (SELECT unnest($failed::VARCHAR[])) THEN 'failed'
    WHEN charge_category = 'Purchase' AND rule <> 'time-window' THEN 'unused-commitment'
    WHEN rule = 'shared' THEN 'shared'
    WHEN rule = 'unattributed' THEN 'unattributed'
    ELSE 'productive'
END
