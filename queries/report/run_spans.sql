-- Each run's span, within which its hidden cost is counted (SPEC §4): the run's own times from the log,
-- else its first window start and last window end. One definition for waste_idle and
-- reconcile_reserved_windows, as a table macro read where needed.
-- Grain: experiment (those of `ids` with resource windows). No parameters: the macro takes `ids` (list of
-- experiment ids), given by its callers.
CREATE OR REPLACE TEMP MACRO run_spans(ids) AS TABLE
SELECT x.experiment_id,
       coalesce(any_value(e.started_at), min(x.started_at)) AS run_start,
       coalesce(any_value(e.ended_at), max(x.ended_at)) AS run_end
FROM experiment_resources x LEFT JOIN experiments e ON e.experiment_id = x.experiment_id
WHERE x.experiment_id IN (SELECT unnest(ids))
GROUP BY x.experiment_id
