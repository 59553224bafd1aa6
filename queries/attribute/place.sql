-- Where each charge of the given periods goes, as a table macro: `whole` (rules 1-3 as resolved, also
-- when only another project's run covers it), `covered` (lies inside one segment of its resource's
-- timeline where exactly one matching run takes a share: placed whole on that run), `idle` or
-- `no-experiment` (inside a segment no run of its class covers, SPEC §4 rule 4; never idle when billed for
-- usage, `usage_billed`: an API charge keeps its tag, or stays unattributed), or `split` (a window
-- boundary falls inside it, or several runs share it: `attribute_windows` splits it exactly). The a_*
-- columns are the single allocation's keys, the others those of `resolved_charges`.
-- Grain: one row per charge. No parameters: the macro takes `periods` (list of YYYY-MM), given by its callers.
-- Which charges are candidates, and what each placement gives, follow `attribute_windows`.
CREATE OR REPLACE TEMP MACRO placed_charges(periods) AS TABLE
WITH keyed AS (
    SELECT
        r.*,
        CASE
            WHEN r.charge_period_end > r.charge_period_start
             AND (r.rule = 'unattributed'
                  OR (r.rule IN ('tag', 'inventory') AND r.experiment_id IS NULL AND r.project IS NOT NULL))
                THEN r.rule = 'unattributed'
        END AS any_project
    FROM resolved_charges(periods) r
),
classed AS (
    SELECT
        k.*, c.tc_id, c.owner, c.owner_method, s.tc_id IS NOT NULL AS inside, s.n_active, s.n_match,
        s.n_share, s.experiment_id AS w_experiment, s.phase AS w_phase, s.project AS w_project,
        s.method AS w_method
    FROM keyed k
    LEFT JOIN timeline_classes c
        ON c.provider = k.provider AND c.resource_id = k.resource_id AND c.billing_period = k.billing_period
       AND c.billing_period_start = k.billing_period_start AND c.billing_period_end = k.billing_period_end
       AND c.any_project = k.any_project
       AND c.project IS NOT DISTINCT FROM CASE WHEN k.any_project THEN NULL ELSE k.project END
       AND c.method IS NOT DISTINCT FROM CASE WHEN k.any_project THEN NULL ELSE k.method END
    LEFT JOIN class_segments s
        ON s.tc_id = c.tc_id AND s.seg_start <= k.charge_period_start AND s.seg_end >= k.charge_period_end
),
placed AS (
    SELECT
        *,
        CASE
            WHEN tc_id IS NULL THEN 'whole'
            WHEN NOT inside OR epoch_ms(charge_period_end) = epoch_ms(charge_period_start) THEN 'split'
            WHEN NOT any_project AND n_match = 0 AND (cost_category <> 'compute' OR usage_billed(provider))
                THEN 'whole'
            WHEN n_share > 1 THEN 'split'
            WHEN n_share = 1 THEN 'covered'
            WHEN n_active > 0 THEN 'whole'  -- another project's run: the charge keeps its tag
            WHEN NOT any_project THEN 'idle'
            WHEN owner IS NOT NULL AND NOT usage_billed(provider) THEN 'idle'
            ELSE 'no-experiment'
        END AS placement
    FROM classed
)
SELECT
    * EXCLUDE (tc_id, owner, owner_method, inside, n_active, n_match, n_share, w_experiment, w_phase, w_project,
               w_method, any_project),
    CASE placement
        WHEN 'covered' THEN CASE WHEN any_project THEN w_project ELSE project END
        WHEN 'idle' THEN CASE WHEN any_project THEN owner ELSE project END
        WHEN 'no-experiment' THEN NULL
        ELSE project
    END AS a_project,
    CASE placement
        WHEN 'covered' THEN CASE WHEN any_project THEN w_phase ELSE coalesce(phase, w_phase) END
        WHEN 'idle' THEN 'idle'
        WHEN 'no-experiment' THEN NULL
        ELSE phase
    END AS a_phase,
    CASE placement
        WHEN 'covered' THEN CASE WHEN any_project THEN w_method ELSE coalesce(method, w_method) END
        WHEN 'idle' THEN CASE WHEN any_project THEN owner_method ELSE method END
        WHEN 'no-experiment' THEN NULL
        ELSE method
    END AS a_method,
    CASE placement WHEN 'covered' THEN w_experiment WHEN 'whole' THEN experiment_id WHEN 'split' THEN experiment_id
    END AS a_experiment_id,
    CASE placement
        WHEN 'covered' THEN CASE WHEN any_project THEN 'time-window' ELSE rule END
        WHEN 'idle' THEN 'idle'
        WHEN 'no-experiment' THEN 'unattributed'
        ELSE rule
    END AS a_rule,
    CASE placement
        WHEN 'covered' THEN CASE WHEN any_project THEN NULL ELSE reason END
        WHEN 'idle' THEN NULL
        WHEN 'no-experiment' THEN 'no-experiment'
        ELSE reason
    END AS a_reason
FROM placed
