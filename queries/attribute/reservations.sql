-- Reserved GPU capacity (`[[reservations]]`): the charges on a reservation, as shares for the exact split
-- (`attribute_allocate`). A charge is on a reservation when its resource id is the reservation's id or an ARN
-- ending in `/<id>` (ingest/normalize_cur2.sql says how EC2 bills them). A fee paid for the window (a
-- Purchase, or a row of usage type %CapacityBlockFee%: the EC2 Capacity Block's upfront fee and its refund)
-- is spread over the window [start, end) by GPU-time: each window of the experiment log on one of the
-- reservation's instances takes its GPUs x milliseconds of overlap with the reservation window, carrying that
-- overlap as its period (rule `time-window`, as rule 4 places runs); the reserved GPUs no run used are the
-- reservation project's unused commitment (rule `idle`, phase `idle`, reason `unused-commitment`: capacity of
-- the project's that no run used): the window is cut at every run boundary, and each piece weighs its spare
-- GPUs x milliseconds and carries its own period. Where runs logged more GPUs than were reserved they share
-- that piece among themselves, nothing unused. A log window without GPUs counts as its instance's part of the
-- reservation (reserved GPUs / instances listed, at least 1).
-- Any other charge on a reservation is capacity billed because nobody used it (On-Demand Capacity
-- Reservation `UnusedBox` hours; used capacity is billed on the instances' own rows): whole to the
-- project, as unused commitment.
-- Grain: reservation charge x share, with the charge's columns (as `attribute_windows`).
-- Parameters: $periods (list of YYYY-MM). Reads charges, allocations (the cost category attribution
-- gave the charge) and the temp tables `reservation_config` and `log_windows`.
CREATE OR REPLACE TEMP TABLE shares AS
WITH reservations AS (
    SELECT DISTINCT id, project, window_start, window_end, gpus, n_instances FROM reservation_config
),
reserved AS (
    SELECT
        c.charge_id, c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id,
        c.charge_period_start, c.charge_period_end, c.service_name, c.charge_category, c.pricing_category,
        c.billing_currency, c.billed_cost, c.effective_cost, c.list_cost, r.id, r.project AS owner,
        r.window_start, r.window_end, r.gpus AS reserved_gpus, r.n_instances,
        c.charge_category = 'Purchase' OR coalesce(c.usage_type LIKE '%CapacityBlockFee%', false) AS prepaid
    FROM charges c
    JOIN reservations r ON r.id = c.resource_id OR c.resource_id LIKE '%/' || r.id
    WHERE list_contains($periods, c.billing_period)
),
categorised AS (
    SELECT r.*, a.cost_category
    FROM reserved r
    JOIN (SELECT charge_id, any_value(cost_category) AS cost_category FROM allocations
          WHERE list_contains($periods, billing_period) GROUP BY charge_id) a USING (charge_id)
),
runs AS (
    SELECT DISTINCT
        rc.id, w.provider, w.experiment_id, w.phase, w.project, w.method, w.rkey, w.gpus, w.started_at,
        w.ended_at
    FROM reservation_config rc
    JOIN log_windows w ON w.name = rc.instance
),
used AS (
    SELECT
        c.charge_id, greatest(u.started_at, c.window_start) AS seg_start, least(u.ended_at, c.window_end) AS seg_end,
        u.project, u.phase, u.method, u.experiment_id,
        CAST(CASE WHEN u.gpus > 0 THEN u.gpus ELSE greatest(c.reserved_gpus // c.n_instances, 1) END AS HUGEINT)
            AS g
    FROM categorised c
    JOIN runs u
      ON u.id = c.id AND (u.provider IS NULL OR u.provider = c.provider)
     AND u.started_at < c.window_end AND u.ended_at > c.window_start
    WHERE c.prepaid
),
bounds AS (
    SELECT charge_id, window_start AS t FROM categorised WHERE prepaid
    UNION
    SELECT charge_id, window_end FROM categorised WHERE prepaid
    UNION
    SELECT charge_id, seg_start FROM used
    UNION
    SELECT charge_id, seg_end FROM used
),
pieces AS (
    SELECT * FROM (
        SELECT charge_id, t AS seg_start, lead(t) OVER (PARTITION BY charge_id ORDER BY t) AS seg_end FROM bounds
    )
    WHERE seg_end IS NOT NULL
),
-- The reserved GPUs no run used in each piece of the window between run boundaries.
spare AS (
    SELECT
        p.charge_id, p.seg_start, p.seg_end,
        greatest(any_value(c.reserved_gpus) - coalesce(sum(u.g), 0), 0)
            * (epoch_ms(p.seg_end) - epoch_ms(p.seg_start)) AS weight
    FROM pieces p
    JOIN categorised c USING (charge_id)
    LEFT JOIN used u ON u.charge_id = p.charge_id AND u.seg_start <= p.seg_start AND u.seg_end >= p.seg_end
    GROUP BY p.charge_id, p.seg_start, p.seg_end
),
placed AS (
    SELECT
        charge_id, seg_start, seg_end, project, phase, method, experiment_id, 'time-window' AS rule,
        CAST(NULL AS VARCHAR) AS reason, g * (epoch_ms(seg_end) - epoch_ms(seg_start)) AS weight
    FROM used
    UNION ALL
    SELECT
        s.charge_id, s.seg_start, s.seg_end, c.owner, 'idle', NULL, NULL, 'idle', 'unused-commitment', s.weight
    FROM spare s JOIN categorised c USING (charge_id)
    UNION ALL
    SELECT charge_id, NULL, NULL, owner, 'idle', NULL, NULL, 'idle', 'unused-commitment', 1
    FROM categorised WHERE NOT prepaid
)
SELECT
    p.charge_id, p.seg_start, p.seg_end, p.project, p.phase, p.method, p.experiment_id, p.rule, p.reason,
    c.cost_category, p.weight, c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id,
    c.charge_period_start, c.charge_period_end, c.service_name, c.charge_category, c.pricing_category,
    c.billing_currency, c.billed_cost, c.effective_cost, c.list_cost
FROM placed p
JOIN categorised c USING (charge_id)
WHERE p.weight > 0
