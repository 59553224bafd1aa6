-- The charges that need the exact split by time windows: the share-0 rows `attribute_allocate_placed`
-- wrote (where rules 1-3 leave them), with the columns `attribute_windows` and `attribute_allocate_whole`
-- read: the kind spelled out, the resource and billing period bounds from the charge. Few on any bill: a
-- window boundary inside the charge, or several runs sharing it, so the bill is only probed for them.
-- Grain: charge. Parameters: $periods (list of YYYY-MM).
CREATE OR REPLACE TEMP TABLE resolved AS
WITH held AS (
    SELECT * FROM allocation_rows WHERE share_no = 0
),
charged AS (
    SELECT charge_id, resource_id, billing_period_start, billing_period_end
    FROM charges
    WHERE list_contains($periods, billing_period) AND charge_id IN (SELECT charge_id FROM held)
)
SELECT
    a.charge_id, k.source, k.provider, k.billing_period, c.billing_period_start, c.billing_period_end,
    k.billing_account_id, k.sub_account_id, c.resource_id, a.charge_period_start, a.charge_period_end,
    k.service_name, k.charge_category, k.pricing_category, k.currency AS billing_currency, a.billed_cost,
    a.effective_cost, a.list_cost, a.cost_category, a.rule, a.experiment_id, a.project, a.phase, a.method,
    a.reason
FROM held a
JOIN charge_kinds k USING (kind_id)
JOIN charged c USING (charge_id)
WHERE list_contains($periods, k.billing_period)
