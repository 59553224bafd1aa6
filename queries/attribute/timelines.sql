-- The resources the experiment log places runs on, as timelines: one per (provider, resource, billing
-- period) with charges in scope and log windows overlapping that billing period (a window whose provider
-- is unknown matches any). Each carries its windows and the owner of its idle time (SPEC §4 rule 4): the
-- one project that the tags of the resource's charges in that billing period name, else the one project
-- (and method) of every run on it then. Grain: timeline. Parameters: $periods (list of YYYY-MM).
-- Reads the macro `resolved_charges` and the temp table `log_windows`.
CREATE OR REPLACE TEMP TABLE timelines AS
WITH charged AS (
    SELECT
        provider, resource_id, billing_period, billing_period_start, billing_period_end,
        list(DISTINCT project) FILTER (WHERE rule IN ('tag', 'inventory') AND project IS NOT NULL)
            AS tag_projects
    FROM resolved_charges($periods)
    WHERE resource_id IN (SELECT name FROM log_windows)
    GROUP BY ALL
),
owned AS (
    SELECT
        *,
        list_distinct(flatten(list(tag_projects) OVER (PARTITION BY resource_id, billing_period))) AS owners
    FROM charged
),
windowed AS (
    SELECT
        o.provider, o.resource_id, o.billing_period, o.billing_period_start, o.billing_period_end,
        CASE WHEN len(o.owners) = 1 THEN o.owners[1] END AS tag_owner,
        list({'experiment_id': w.experiment_id, 'phase': w.phase, 'project': w.project, 'method': w.method,
              'gpus': w.gpus, 'started_at': w.started_at, 'ended_at': w.ended_at}) AS windows,
        CASE WHEN count(DISTINCT w.project) = 1 AND count(w.project) = count(*) THEN any_value(w.project) END
            AS log_project,
        CASE WHEN count(DISTINCT w.method) = 1 AND count(w.method) = count(*) THEN any_value(w.method) END
            AS log_method
    FROM owned o
    JOIN log_windows w
      ON w.name = o.resource_id AND (w.provider IS NULL OR w.provider = o.provider)
     AND w.started_at < o.billing_period_end AND w.ended_at > o.billing_period_start
    GROUP BY ALL
)
SELECT
    CAST(row_number() OVER () AS BIGINT) AS t_id,
    provider, resource_id, billing_period, billing_period_start, billing_period_end, tag_owner, windows,
    coalesce(tag_owner, log_project) AS owner,
    CASE WHEN coalesce(tag_owner, log_project) = log_project THEN log_method END AS owner_method
FROM windowed
