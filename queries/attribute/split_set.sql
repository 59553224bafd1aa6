-- The charges that need the exact split by time windows: the share-0 references `attribute_allocate_placed`
-- wrote (where rules 1-3 leave them, their tuple in allocation_tuples), with the columns `attribute_windows`
-- and `attribute_allocate_whole` read, from the charge. Few on any bill: a window boundary inside the
-- charge, or several runs sharing it, so the bill is only probed for them.
-- Grain: charge. Parameters: $periods (list of YYYY-MM).
CREATE OR REPLACE TEMP TABLE resolved AS
WITH held AS (
    SELECT charge_id, tuple_id FROM allocation_refs WHERE share_no = 0
)
SELECT
    c.charge_id, c.source, c.provider, c.billing_period, c.billing_period_start, c.billing_period_end,
    c.billing_account_id, c.sub_account_id, c.resource_id, c.charge_period_start, c.charge_period_end,
    c.service_name, c.charge_category, c.pricing_category, c.billing_currency, c.billed_cost,
    c.effective_cost, c.list_cost, t.cost_category, t.rule, t.experiment_id, t.project, t.phase, t.method,
    t.reason, h.tuple_id
FROM charges c
JOIN held h USING (charge_id)
JOIN allocation_tuples t USING (tuple_id)
WHERE list_contains($periods, c.billing_period) AND c.charge_id IN (SELECT charge_id FROM held)
