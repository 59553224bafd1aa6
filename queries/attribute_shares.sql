-- Turn resolved charges into weighted shares. A charge that tags or inventory place, on a resource the
-- experiment log shows an experiment of the same project and method using during the charge period,
-- carries that experiment, split by overlap seconds x GPUs when several qualify (SPEC §4).
-- Grain: charge x share (weight is a positive whole number). No parameters.
CREATE OR REPLACE TEMP TABLE shares AS
WITH windows AS (
    SELECT
        r.charge_id, x.experiment_id, coalesce(r.phase, x.phase) AS phase,
        sum(
            (epoch(least(x.ended_at, r.charge_period_end)) - epoch(greatest(x.started_at, r.charge_period_start)))
            * greatest(x.gpus, 1)
        ) AS weight
    FROM resolved r
    JOIN experiment_resources x
      ON x.resource_id = r.resource_id
     AND x.started_at < r.charge_period_end
     AND x.ended_at > r.charge_period_start
    JOIN experiments e ON e.experiment_id = x.experiment_id
    WHERE r.rule IN ('tag', 'inventory') AND r.experiment_id IS NULL AND r.project IS NOT NULL
      AND e.project = r.project AND (r.method IS NULL OR e.method = r.method)
    GROUP BY ALL
),
carried AS (
    SELECT r.charge_id, r.project, w.phase, r.method, w.experiment_id, r.rule, r.reason, r.cost_category,
           CAST(round(w.weight) AS HUGEINT) AS weight
    FROM resolved r JOIN windows w USING (charge_id)
    WHERE w.weight > 0
)
SELECT * FROM carried
UNION ALL
SELECT r.charge_id, r.project, r.phase, r.method, r.experiment_id, r.rule, r.reason, r.cost_category,
       CAST(1 AS HUGEINT) AS weight
FROM resolved r
WHERE r.charge_id NOT IN (SELECT charge_id FROM carried)
