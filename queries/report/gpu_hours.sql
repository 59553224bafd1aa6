-- GPU hours in use (the experiment log's windows x GPUs) vs provisioned (billed compute hours of the same
-- resources x the most GPUs any run used on them), per project and method of the runs.
-- Grain: project x method. Parameters: none. A resource several projects used counts for each of them.
-- Resources match by any of their names (resource_names), as in attribution.
WITH names AS (SELECT provider, name, rkey FROM resource_names),
logged AS (
    -- Each log window's resource under its one key, whichever name the log used (resource_names).
    SELECT x.*, coalesce(n.rkey, x.resource_id) AS rkey
    FROM experiment_resources x
    LEFT JOIN names n ON n.name = x.resource_id AND (x.provider IS NULL OR n.provider = x.provider)
),
used AS (
    SELECT e.project, e.method, x.rkey,
           sum((epoch(x.ended_at) - epoch(x.started_at)) / 3600.0 * x.gpus) AS gpu_hours
    FROM logged x JOIN experiments e USING (experiment_id)
    WHERE x.gpus > 0 AND x.ended_at < TIMESTAMP '2100-01-01'
    GROUP BY ALL
),
gpus AS (
    SELECT rkey, max(gpus) AS gpus FROM logged GROUP BY rkey
),
billed AS (
    SELECT coalesce(n.rkey, c.resource_id) AS rkey,
           sum(epoch(c.charge_period_end) - epoch(c.charge_period_start)) / 3600.0 AS hours
    FROM charges c JOIN charge_categories cat
      ON cat.provider IS NOT DISTINCT FROM c.provider AND cat.service_name IS NOT DISTINCT FROM c.service_name
     AND cat.usage_type IS NOT DISTINCT FROM c.usage_type AND cat.charge_category IS NOT DISTINCT FROM c.charge_category
       AND cat.service_category IS NOT DISTINCT FROM c.service_category
    LEFT JOIN names n ON n.name = c.resource_id AND n.provider = c.provider
    WHERE cat.cost_category = 'compute' AND c.charge_category = 'Usage' AND c.list_cost > 0
      AND coalesce(n.rkey, c.resource_id) IN (SELECT rkey FROM gpus)
    GROUP BY 1
)
SELECT u.project, u.method, CAST(round(sum(u.gpu_hours), 2) AS DECIMAL(18, 2)) AS gpu_hours_in_use,
       CAST(round(sum(b.hours * g.gpus), 2) AS DECIMAL(18, 2)) AS gpu_hours_provisioned
FROM used u JOIN gpus g USING (rkey) LEFT JOIN billed b USING (rkey)
GROUP BY ALL
ORDER BY ALL
