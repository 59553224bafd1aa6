-- Rules 1-3 and the shared/unattributed fallbacks of SPEC §4, for the charges of the given periods, as a
-- table macro: read where needed, never copied whole into a temporary table (a big bill would not fit).
-- Grain: one row per charge. No parameters: the macro takes `periods` (list of YYYY-MM), given by its callers.
-- Charge tags win over inventory tags; a tag naming an experiment wins over (project, phase, method).
-- The charge's own columns ride along so that a charge placed whole is inserted without a second join.
-- A Kubernetes node's own row after its pods took their split cost (resource_type 'k8s-node', see
-- ingest/normalize_cur2.sql) holds the node's unused capacity: idle of the project its tags name.
CREATE OR REPLACE TEMP MACRO resolved_charges(periods) AS TABLE
WITH scoped AS (
    SELECT * FROM charges WHERE list_contains(periods, billing_period)
),
inventory AS (
    SELECT r.provider, r.resource_id AS name, r.tags
    FROM resources r
    UNION ALL
    SELECT r.provider, unnest(r.aliases) AS name, r.tags
    FROM resources r WHERE r.aliases IS NOT NULL
),
joined AS (
    SELECT
        c.charge_id, c.source, c.provider, c.billing_period, c.billing_period_start, c.billing_period_end,
        c.billing_account_id, c.sub_account_id, c.resource_id, c.charge_period_start, c.charge_period_end,
        c.charge_category, c.pricing_category, c.service_name, c.billing_currency, c.billed_cost,
        c.effective_cost, c.list_cost, c.resource_type, c.line_item_type,
        ls.project AS t_project, ls.phase AS t_phase, ls.method AS t_method, ls.experiment_id AS t_experiment,
        ls.status AS t_status, ls.problem AS t_problem,
        il.project AS i_project, il.phase AS i_phase, il.method AS i_method, il.experiment_id AS i_experiment,
        il.status AS i_status, il.problem AS i_problem,
        cat.cost_category
    FROM scoped c
    LEFT JOIN label_sets ls ON ls.tags = c.tags
    LEFT JOIN (SELECT DISTINCT ON (provider, name) * FROM inventory ORDER BY provider, name, tags) inv
        ON inv.provider = c.provider AND inv.name = c.resource_id
    LEFT JOIN label_sets il ON il.tags = inv.tags
    LEFT JOIN charge_categories cat
        ON cat.provider IS NOT DISTINCT FROM c.provider
       AND cat.service_name IS NOT DISTINCT FROM c.service_name
       AND cat.usage_type IS NOT DISTINCT FROM c.usage_type
       AND cat.charge_category IS NOT DISTINCT FROM c.charge_category
       AND cat.service_category IS NOT DISTINCT FROM c.service_category
)
SELECT
    j.charge_id, j.source, j.provider, j.billing_period, j.billing_period_start, j.billing_period_end,
    j.billing_account_id, j.sub_account_id, j.resource_id, j.charge_period_start, j.charge_period_end,
    j.service_name, j.charge_category, j.pricing_category, j.billing_currency, j.billed_cost, j.effective_cost,
    j.list_cost,
    coalesce(j.cost_category, 'other') AS cost_category,
    j.rule,
    CASE j.rule WHEN 'tag' THEN j.t_experiment WHEN 'inventory' THEN j.i_experiment END AS experiment_id,
    CASE j.rule
        WHEN 'idle' THEN coalesce(j.t_project, j.i_project)
        WHEN 'tag' THEN coalesce(j.t_project, e1.project)
        WHEN 'inventory' THEN coalesce(j.i_project, e2.project)
    END AS project,
    CASE j.rule WHEN 'tag' THEN j.t_phase WHEN 'inventory' THEN coalesce(j.t_phase, j.i_phase)
                WHEN 'idle' THEN 'idle' END AS phase,
    CASE j.rule
        WHEN 'idle' THEN CASE WHEN j.t_project IS NOT NULL THEN j.t_method ELSE j.i_method END
        WHEN 'tag' THEN coalesce(j.t_method, e1.method)
        WHEN 'inventory' THEN coalesce(j.t_method, j.i_method, e2.method)
    END AS method,
    CASE
        WHEN j.rule = 'idle' THEN NULL
        WHEN j.rule = 'tag' THEN j.t_problem
        WHEN j.rule = 'inventory' THEN j.i_problem
        WHEN j.rule = 'shared' THEN lower(j.charge_category)
        WHEN coalesce(j.t_status, 'untagged') = 'untagged' AND coalesce(j.i_status, 'untagged') = 'untagged'
            THEN 'untagged'
        ELSE CASE WHEN coalesce(j.t_status, 'untagged') <> 'untagged' THEN j.t_status ELSE j.i_status END
    END AS reason
FROM (
    SELECT
        *,
        -- Tax and enterprise discounts are shared even when their rows carry labels (GCP writes tax per
        -- labelled project, CUR an EDP or private-rate discount per discounted line item): SPEC §4.
        CASE
            WHEN provider = 'manual' THEN 'tag'  -- an off-cloud ledger row states its labels: its tags
            WHEN charge_category = 'Tax' THEN 'shared'
            WHEN provider = 'aws'
             AND line_item_type IN ('EdpDiscount', 'PrivateRateDiscount', 'DistributorDiscount') THEN 'shared'
            WHEN resource_type = 'k8s-node' AND coalesce(t_project, i_project) IS NOT NULL THEN 'idle'
            WHEN t_experiment IS NOT NULL THEN 'tag'
            -- Rule 2 needs the whole key: a charge whose tags give only part of it (say phase and method
            -- not activated as cost allocation tags) takes the key from the inventory when that gives it
            -- whole for the same project (rule 3); the charge's own parts still win.
            WHEN t_project IS NOT NULL AND (t_phase IS NULL OR t_method IS NULL)
             AND (i_project = t_project AND i_phase IS NOT NULL AND i_method IS NOT NULL
                  OR i_experiment IS NOT NULL AND coalesce(i_project, t_project) = t_project) THEN 'inventory'
            WHEN t_project IS NOT NULL THEN 'tag'
            WHEN i_experiment IS NOT NULL OR i_project IS NOT NULL THEN 'inventory'
            WHEN charge_category <> 'Usage' OR lower(coalesce(service_name, '')) LIKE '%support%' THEN 'shared'
            ELSE 'unattributed'
        END AS rule
    FROM joined
) j
LEFT JOIN experiments e1 ON e1.experiment_id = j.t_experiment
LEFT JOIN experiments e2 ON e2.experiment_id = j.i_experiment
