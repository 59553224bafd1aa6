-- GPU hours in use (the experiment log's windows x GPUs) vs provisioned (billed compute hours of the same
-- resources x the most GPUs any run used on them), per project and method of the runs.
-- Grain: project x method. Parameters: none. A resource several projects used counts for each of them.
WITH used AS (
    SELECT e.project, e.method, x.resource_id,
           sum((epoch(x.ended_at) - epoch(x.started_at)) / 3600.0 * x.gpus) AS gpu_hours
    FROM experiment_resources x JOIN experiments e USING (experiment_id)
    WHERE x.gpus > 0 AND x.ended_at < TIMESTAMP '2100-01-01'
    GROUP BY ALL
),
gpus AS (
    SELECT resource_id, max(gpus) AS gpus FROM experiment_resources GROUP BY resource_id
),
billed AS (
    SELECT c.resource_id,
           sum(epoch(c.charge_period_end) - epoch(c.charge_period_start)) / 3600.0 AS hours
    FROM charges c JOIN charge_categories cat
      ON cat.provider IS NOT DISTINCT FROM c.provider AND cat.service_name IS NOT DISTINCT FROM c.service_name
     AND cat.usage_type IS NOT DISTINCT FROM c.usage_type AND cat.charge_category IS NOT DISTINCT FROM c.charge_category
    WHERE cat.cost_category = 'compute' AND c.charge_category = 'Usage' AND c.list_cost > 0
      AND c.resource_id IN (SELECT resource_id FROM gpus)
    GROUP BY c.resource_id
)
SELECT u.project, u.method, CAST(round(sum(u.gpu_hours), 2) AS DECIMAL(18, 2)) AS gpu_hours_in_use,
       CAST(round(sum(b.hours * g.gpus), 2) AS DECIMAL(18, 2)) AS gpu_hours_provisioned
FROM used u JOIN gpus g USING (resource_id) LEFT JOIN billed b USING (resource_id)
GROUP BY ALL
ORDER BY ALL
