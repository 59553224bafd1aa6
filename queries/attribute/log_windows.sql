-- The experiment log's resource windows (SPEC §4 rule 4), with the resource resolved through the
-- inventory's aliases (a GCP instance is named by its name, numeric id or global name) and each window
-- repeated once per name the bill may use for that resource, so charges match on plain equality.
-- Identical windows (same experiment, phase, resource and times) are one window with their GPUs summed.
-- Grain: window x bill name. No parameters.
CREATE OR REPLACE TEMP TABLE log_windows AS
WITH names AS (SELECT provider, name, rkey FROM resource_names),
keyed AS (
    SELECT
        x.experiment_id, x.phase, coalesce(x.provider, n.provider) AS provider,
        coalesce(n.rkey, x.resource_id) AS rkey, coalesce(x.gpus, 0) AS gpus, x.started_at, x.ended_at
    FROM experiment_resources x
    LEFT JOIN names n ON n.name = x.resource_id AND (x.provider IS NULL OR n.provider = x.provider)
    WHERE x.ended_at > x.started_at
),
windows AS (
    SELECT
        k.experiment_id, k.phase, k.provider, k.rkey, CAST(sum(k.gpus) AS BIGINT) AS gpus, k.started_at,
        k.ended_at, e.project, e.method
    FROM keyed k
    LEFT JOIN experiments e USING (experiment_id)
    GROUP BY k.experiment_id, k.phase, k.provider, k.rkey, k.started_at, k.ended_at, e.project, e.method
)
SELECT w.*, w.rkey AS name FROM windows w
UNION
SELECT w.*, n.name FROM windows w JOIN names n ON n.rkey = w.rkey AND n.provider = w.provider
