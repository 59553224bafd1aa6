-- `[allocation] shared = "proportional"` (SPEC §4): each shared charge (tax, support, untied credits,
-- discounts, commitment fees) becomes shares over the attributed cost of the same billing account,
-- billing period and currency, in proportion to each receiver's effective cost.
-- Receivers are (project, phase, method, experiment) keys placed by tag, inventory, time-window or idle:
-- idle is a project's cost like any other, so it bears its part of the tax. A receiver whose net effective
-- cost is zero or negative (credits tagged to it) receives nothing; when no receiver is left the charge
-- keeps its single `shared` allocation. Rows keep rule `shared` and the charge's own reason.
-- Grain: shared charge x receiver, with the charge's columns (as `attribute_windows`).
-- Parameters: $periods (list of YYYY-MM). Reads allocations.
CREATE OR REPLACE TEMP TABLE shares AS
WITH receivers AS (
    SELECT billing_account_id, billing_period, currency, project, phase, method, experiment_id,
           sum(effective_cost) AS cost
    FROM allocations
    WHERE list_contains($periods, billing_period) AND rule IN ('tag', 'inventory', 'time-window', 'idle')
    GROUP BY ALL
    HAVING sum(effective_cost) > 0
)
SELECT
    a.charge_id, CAST(NULL AS TIMESTAMP) AS seg_start, CAST(NULL AS TIMESTAMP) AS seg_end, r.project, r.phase,
    r.method, r.experiment_id, a.rule, a.reason, a.cost_category,
    to_units(r.cost) AS weight,
    a.source, a.provider, a.billing_period, a.billing_account_id, a.sub_account_id, a.charge_period_start,
    a.charge_period_end, a.service_name, a.charge_category, a.pricing_category, a.currency AS billing_currency,
    a.billed_cost, a.effective_cost, a.list_cost
FROM allocations a
JOIN receivers r
  ON r.billing_account_id IS NOT DISTINCT FROM a.billing_account_id
 AND r.billing_period = a.billing_period
 AND r.currency = a.currency
WHERE list_contains($periods, a.billing_period) AND a.rule = 'shared'
