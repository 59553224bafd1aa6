-- Split charges by the experiment log's time windows (SPEC §4 rule 4 and the experiment carry).
-- Grain: charge x time segment x share; weights are positive whole numbers, comparable within a charge.
-- Each share carries its charge's columns, so `attribute_allocate` need not read the bill again.
-- Parameters: $slice of $slices, the part of `resolved` (the charges `placed_charges` could not place
-- whole) to split this time, so that a bill with millions of them splits a bounded number at a time. Reads
-- the temp tables `resolved`, `log_windows` and `timelines` (for the owner named by the tags of the
-- resource's other charges).
--
-- Which charges: an unattributed charge on a resource that the log places any run on in the charge's
-- billing period (rule 4); a tag/inventory charge without an experiment when a run of its project (and
-- method, when tagged) overlaps it, or, for compute, runs on the resource in that billing period.
-- How: the charge period is cut at every window boundary. In each segment the matching runs share by
-- GPUs (equally when none of them reports GPUs); the segment's weight is its milliseconds times D, where D
-- is the least common multiple of the segments' GPU totals, so every share is an exact integer. Should D
-- exceed 1e9 (dozens of distinct GPU totals on one charge) it becomes 720720 and GPU fractions are floored.
-- A segment no run covers is idle of the resource's project: for rule 4 the project named by the tags of
-- the resource's other charges, else the one project every run on it that billing period belongs to (else
-- unattributed `no-experiment`); for a tagged compute charge, the tag's project. A tagged storage or
-- network charge keeps its tag for uncovered time (storage holds data whether or not a job reads it), and
-- so does a charge billed for usage (`usage_billed`: an LLM API's day), which is unattributed there
-- when untagged: nobody paid for capacity that went unused.
-- A tagged segment covered only by runs of another project keeps the tag, without an experiment.
-- The steps read more than once are MATERIALIZED: computed once on Spark too, which otherwise inlines a CTE
-- at every use (warehouse/spark.py; the inlined plan held 154 joins).
CREATE OR REPLACE TEMP TABLE shares AS
WITH pairs AS MATERIALIZED (
    SELECT
        r.charge_id, r.rule, r.project AS r_project, r.phase AS r_phase, r.method AS r_method, r.reason,
        r.cost_category, r.resource_id, r.billing_period, r.provider, r.charge_period_start AS c_start,
        r.charge_period_end AS c_end, w.experiment_id, w.phase AS w_phase, w.project AS w_project,
        w.method AS w_method, w.gpus, w.started_at, w.ended_at,
        w.started_at < r.charge_period_end AND w.ended_at > r.charge_period_start AS overlapping,
        r.rule = 'unattributed'
            OR (w.project IS NOT DISTINCT FROM r.project AND (r.method IS NULL OR w.method = r.method)) AS matches
    FROM resolved r
    JOIN log_windows w
      ON w.name = r.resource_id AND (w.provider IS NULL OR w.provider = r.provider)
     AND w.started_at < r.billing_period_end AND w.ended_at > r.billing_period_start
    WHERE charge_slice(r.charge_id, $slices) = $slice
      AND r.charge_period_end > r.charge_period_start
      AND (r.rule = 'unattributed'
           OR (r.rule IN ('tag', 'inventory') AND r.experiment_id IS NULL AND r.project IS NOT NULL))
),
candidates AS MATERIALIZED (
    SELECT
        charge_id, any_value(rule) AS rule, any_value(r_project) AS project, any_value(r_phase) AS phase,
        any_value(r_method) AS method, any_value(reason) AS reason, any_value(cost_category) AS cost_category,
        any_value(resource_id) AS resource_id, any_value(billing_period) AS billing_period,
        any_value(provider) AS provider,
        CASE WHEN count(DISTINCT w_project) = 1 AND count(w_project) = count(*) THEN any_value(w_project) END
            AS log_project,
        CASE WHEN count(DISTINCT w_method) = 1 AND count(w_method) = count(*) THEN any_value(w_method) END
            AS log_method
    FROM pairs
    GROUP BY charge_id
    HAVING any_value(rule) = 'unattributed'
        OR bool_or(matches AND overlapping)
        OR (any_value(cost_category) = 'compute' AND bool_or(matches))
),
tag_owners AS (
    SELECT DISTINCT resource_id, billing_period, tag_owner AS project FROM timelines WHERE tag_owner IS NOT NULL
),
owned AS (
    SELECT
        c.*,
        coalesce(t.project, c.log_project) AS owner,
        CASE WHEN coalesce(t.project, c.log_project) = c.log_project THEN c.log_method END AS owner_method
    FROM candidates c
    LEFT JOIN tag_owners t USING (resource_id, billing_period)
),
cpairs AS MATERIALIZED (
    SELECT p.* FROM pairs p SEMI JOIN candidates c USING (charge_id) WHERE p.overlapping
),
bounds AS (
    SELECT r.charge_id, r.charge_period_start AS t FROM resolved r SEMI JOIN candidates c USING (charge_id)
    UNION
    SELECT r.charge_id, r.charge_period_end FROM resolved r SEMI JOIN candidates c USING (charge_id)
    UNION
    SELECT charge_id, greatest(started_at, c_start) FROM cpairs
    UNION
    SELECT charge_id, least(ended_at, c_end) FROM cpairs
),
segments AS MATERIALIZED (
    SELECT charge_id, seg_start, seg_end, CAST(epoch_ms(seg_end) - epoch_ms(seg_start) AS HUGEINT) AS ms
    FROM (
        SELECT charge_id, t AS seg_start, lead(t) OVER (PARTITION BY charge_id ORDER BY t) AS seg_end FROM bounds
    )
    WHERE seg_end IS NOT NULL
),
active AS MATERIALIZED (
    SELECT s.charge_id, s.seg_start, s.seg_end, s.ms, p.experiment_id, p.w_phase, p.w_project, p.w_method,
           p.gpus, p.matches
    FROM segments s
    JOIN cpairs p ON p.charge_id = s.charge_id AND p.started_at <= s.seg_start AND p.ended_at >= s.seg_end
),
segment_state AS MATERIALIZED (
    SELECT charge_id, seg_start, bool_or(matches) AS any_match,
           coalesce(max(CASE WHEN matches THEN gpus END), 0) > 0 AS by_gpus
    FROM active
    GROUP BY charge_id, seg_start
),
weighted AS MATERIALIZED (
    SELECT a.*, CAST(CASE WHEN st.by_gpus THEN a.gpus ELSE 1 END AS HUGEINT) AS g
    FROM active a JOIN segment_state st USING (charge_id, seg_start)
    WHERE a.matches
),
segment_totals AS MATERIALIZED (
    SELECT charge_id, seg_start, sum(g) AS total FROM weighted GROUP BY charge_id, seg_start
),
denominators AS (
    SELECT charge_id,
           list_reduce(list(DISTINCT total), lambda a, b: CASE WHEN a > 1000000000 THEN a ELSE lcm(a, b) END)
               AS d
    FROM segment_totals
    GROUP BY charge_id
),
scale AS MATERIALIZED (
    SELECT c.charge_id, coalesce(d.d, 1) <= 1000000000 AS exact,
           CASE WHEN coalesce(d.d, 1) <= 1000000000 THEN coalesce(d.d, 1) ELSE 720720 END AS d
    FROM candidates c LEFT JOIN denominators d USING (charge_id)
),
covered AS (
    SELECT
        w.charge_id, w.seg_start, w.seg_end,
        CASE WHEN c.rule = 'unattributed' THEN w.w_project ELSE c.project END AS project,
        CASE WHEN c.rule = 'unattributed' THEN w.w_phase ELSE coalesce(c.phase, w.w_phase) END AS phase,
        CASE WHEN c.rule = 'unattributed' THEN w.w_method ELSE coalesce(c.method, w.w_method) END AS method,
        w.experiment_id,
        CASE WHEN c.rule = 'unattributed' THEN 'time-window' ELSE c.rule END AS rule,
        CASE WHEN c.rule = 'unattributed' THEN NULL ELSE c.reason END AS reason,
        c.cost_category,
        CASE WHEN sc.exact THEN w.ms * w.g * (sc.d // t.total) ELSE (w.ms * w.g * sc.d) // t.total END AS weight
    FROM weighted w
    JOIN segment_totals t USING (charge_id, seg_start)
    JOIN candidates c USING (charge_id)
    JOIN scale sc USING (charge_id)
),
uncovered AS (
    SELECT
        s.charge_id, s.seg_start, s.seg_end,
        CASE WHEN st.charge_id IS NOT NULL THEN 'other-run'
             WHEN o.rule <> 'unattributed' AND (o.cost_category <> 'compute' OR usage_billed(o.provider))
                 THEN 'tagged'
             WHEN o.rule <> 'unattributed' THEN 'idle'
             WHEN o.owner IS NOT NULL AND NOT usage_billed(o.provider) THEN 'idle'
             ELSE 'no-experiment'
        END AS kind,
        o.rule AS c_rule, o.project AS c_project, o.phase AS c_phase, o.method AS c_method, o.reason AS c_reason,
        o.owner, o.owner_method, o.cost_category, s.ms * sc.d AS weight
    FROM segments s
    JOIN owned o USING (charge_id)
    JOIN scale sc USING (charge_id)
    LEFT JOIN segment_state st ON st.charge_id = s.charge_id AND st.seg_start = s.seg_start
    WHERE st.charge_id IS NULL OR NOT st.any_match
),
unplaced AS (
    SELECT
        charge_id, seg_start, seg_end,
        CASE kind WHEN 'idle' THEN (CASE WHEN c_rule = 'unattributed' THEN owner ELSE c_project END)
                  WHEN 'no-experiment' THEN NULL ELSE c_project END AS project,
        CASE kind WHEN 'idle' THEN 'idle' WHEN 'no-experiment' THEN NULL ELSE c_phase END AS phase,
        CASE kind WHEN 'idle' THEN (CASE WHEN c_rule = 'unattributed' THEN owner_method ELSE c_method END)
                  WHEN 'no-experiment' THEN NULL ELSE c_method END AS method,
        CAST(NULL AS VARCHAR) AS experiment_id,
        CASE kind WHEN 'idle' THEN 'idle' WHEN 'no-experiment' THEN 'unattributed' ELSE c_rule END AS rule,
        CASE kind WHEN 'idle' THEN NULL WHEN 'no-experiment' THEN 'no-experiment' ELSE c_reason END AS reason,
        cost_category, weight
    FROM uncovered
),
merged AS (
    SELECT charge_id, seg_start, seg_end, project, phase, method, experiment_id, rule, reason, cost_category,
           sum(weight) AS weight
    FROM (SELECT * FROM covered UNION ALL SELECT * FROM unplaced)
    GROUP BY ALL
    HAVING sum(weight) > 0
)
SELECT m.* EXCLUDE (weight),
       m.weight // list_reduce(list(m.weight) OVER (PARTITION BY m.charge_id), lambda a, b: gcd(a, b)) AS weight,
    r.source, r.provider, r.billing_period, r.billing_account_id, r.sub_account_id, r.charge_period_start,
    r.charge_period_end, r.service_name, r.charge_category, r.pricing_category, r.billing_currency, r.billed_cost,
    r.effective_cost, r.list_cost
FROM merged m
JOIN resolved r USING (charge_id)
