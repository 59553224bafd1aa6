-- Experiments' log windows on the instances of `[[reservations]]` entries, with each run's span (the table
-- macro run_spans, as waste_idle takes it): which reservations a run used, and during what. A window's
-- resource matches by the log's name or any other name the bill or the inventory gives the same resource
-- (resource_names), as in attribution.
-- Grain: experiment x window x matching instance name.
-- Parameters: $ids (list of experiment ids), $instances (list of the reservations' instance names).
WITH names AS (SELECT provider, name, rkey FROM resource_names),
windows AS (
    SELECT * FROM experiment_resources WHERE experiment_id IN (SELECT unnest($ids))
),
span AS (SELECT * FROM run_spans($ids)),
named AS (
    SELECT experiment_id, started_at, ended_at, resource_id AS name FROM windows
    UNION
    SELECT x.experiment_id, x.started_at, x.ended_at, m.name
    FROM windows x
    JOIN names n ON n.name = x.resource_id AND (x.provider IS NULL OR n.provider = x.provider)
    JOIN names m ON m.rkey = n.rkey AND m.provider = n.provider
)
SELECT w.experiment_id, w.name, w.started_at, w.ended_at, s.run_start, s.run_end
FROM named w
JOIN span s ON s.experiment_id = w.experiment_id
WHERE w.ended_at > w.started_at AND w.name IN (SELECT unnest($instances))
ORDER BY ALL
