-- Who may match a timeline's windows (SPEC §4 rule 4 and the experiment carry), one row per class: any
-- run (an unattributed charge), the runs of one project and method, or of one project (a charge tagged
-- without a method). Only classes some window of the timeline matches; a charge of another class has no
-- run to share with. Grain: timeline x class. No parameters; reads the temp table `timelines`.
CREATE OR REPLACE TEMP TABLE timeline_classes AS
WITH windows AS (
    SELECT t_id, unnest(windows, recursive := true) FROM timelines
),
classes AS (
    SELECT t_id, true AS any_project, CAST(NULL AS VARCHAR) AS project, CAST(NULL AS VARCHAR) AS method
    FROM timelines
    UNION
    SELECT t_id, false, project, method FROM windows WHERE project IS NOT NULL
    UNION
    SELECT t_id, false, project, NULL FROM windows WHERE project IS NOT NULL
)
SELECT
    CAST(row_number() OVER () AS BIGINT) AS tc_id, c.t_id, c.any_project, c.project, c.method,
    t.provider, t.resource_id, t.billing_period, t.billing_period_start, t.billing_period_end, t.owner,
    t.owner_method
FROM classes c
JOIN timelines t USING (t_id)
