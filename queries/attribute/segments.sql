-- Each timeline cut at every window boundary into segments (the first and last unbounded), and for each
-- class of `timeline_classes` what a charge lying inside one segment gets: the runs active all through it,
-- those of them the class matches, and those that take a share (when any matching run reports GPUs, runs
-- with zero GPUs take none). With exactly one such run the charge is placed whole on it, with none it is
-- idle, unattributed or keeps its tag; with more, or when a boundary falls inside the charge, the exact
-- split (`attribute_windows`) decides. Grain: class x segment. No parameters.
CREATE OR REPLACE TEMP TABLE class_segments AS
WITH windows AS (
    SELECT t_id, unnest(windows, recursive := true) FROM timelines
),
bounds AS (
    SELECT t_id, started_at AS t FROM windows
    UNION
    SELECT t_id, ended_at FROM windows
    UNION
    SELECT t_id, CAST('-infinity' AS TIMESTAMP) FROM timelines
),
segments AS (
    SELECT t_id, t AS seg_start,
           coalesce(lead(t) OVER (PARTITION BY t_id ORDER BY t), CAST('infinity' AS TIMESTAMP)) AS seg_end
    FROM bounds
),
active AS (
    SELECT s.t_id, s.seg_start, w.experiment_id, w.phase, w.project, w.method, w.gpus
    FROM segments s
    JOIN windows w ON w.t_id = s.t_id AND w.started_at <= s.seg_start AND w.ended_at >= s.seg_end
),
active_counts AS (
    SELECT t_id, seg_start, count(*) AS n_active FROM active GROUP BY ALL
),
matched AS (
    SELECT c.tc_id, a.*
    FROM timeline_classes c
    JOIN active a ON a.t_id = c.t_id
    WHERE c.any_project OR (a.project = c.project AND (c.method IS NULL OR a.method = c.method))
),
by_gpus AS (
    SELECT tc_id, seg_start, count(*) AS n_match, max(gpus) > 0 AS by_gpus FROM matched GROUP BY ALL
),
sharing AS (
    SELECT
        m.tc_id, m.seg_start, count(*) AS n_share, any_value(m.experiment_id) AS experiment_id,
        any_value(m.phase) AS phase, any_value(m.project) AS project, any_value(m.method) AS method
    FROM matched m
    JOIN by_gpus g USING (tc_id, seg_start)
    WHERE NOT g.by_gpus OR m.gpus > 0
    GROUP BY ALL
)
SELECT
    c.tc_id, s.seg_start, s.seg_end, coalesce(n.n_active, 0) AS n_active, coalesce(g.n_match, 0) AS n_match,
    coalesce(h.n_share, 0) AS n_share, h.experiment_id, h.phase, h.project, h.method
FROM timeline_classes c
JOIN segments s USING (t_id)
LEFT JOIN active_counts n ON n.t_id = s.t_id AND n.seg_start = s.seg_start
LEFT JOIN by_gpus g ON g.tc_id = c.tc_id AND g.seg_start = s.seg_start
LEFT JOIN sharing h ON h.tc_id = c.tc_id AND h.seg_start = s.seg_start
