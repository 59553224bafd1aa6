-- The charges sent to the exact split that turned out to have no shares (no run of their class overlaps
-- them) go whole to their single allocation, as rules 1-3 resolved them. Grain: charge. Parameters: $slice
-- of $slices, the part of `resolved` that `attribute_windows` split last.
INSERT INTO allocation_rows
SELECT
    r.charge_id, 1,
    charge_kind_id(r.source, r.provider, r.billing_period, r.billing_account_id, r.sub_account_id, r.service_name,
                   r.charge_category, r.pricing_category, r.billing_currency),
    r.charge_period_start, r.charge_period_end, r.project, r.phase, r.method, r.experiment_id, r.cost_category,
    r.rule, r.reason, r.billed_cost, r.effective_cost, r.list_cost
FROM resolved r
WHERE charge_slice(r.charge_id, $slices) = $slice
  AND NOT EXISTS (SELECT 1 FROM shares s WHERE s.charge_id = r.charge_id)
