-- Finance export: allocations of one billing period summed over the dimensions kept by --by.
-- Grain: one row per distinct combination of the kept dimensions (the others are NULL).
-- Parameters: $period (YYYY-MM). The dimension list replaces the marker below: only column names from a
-- fixed allow-list (reports/realize.py, the one place that composes SQL), never input values, among the
-- export's columns (outputs/export.py CSV_COLUMNS) that `allocated` spells out.
-- Reads the tables behind the view `allocations`: the charges placed whole (allocation_refs) are summed per
-- tuple and charge columns before the tuple's labels are joined on, so the join with `charges` carries two
-- integers per charge and the labels meet a few thousand sums instead of every charge (at 1M charges
-- 0.39 -> 0.13 s, main's copy of every allocation 0.24 s). A sum of exact sums: the same figures.
WITH whole AS (
    SELECT r.tuple_id, c.billing_period, c.provider, c.billing_account_id, c.sub_account_id, c.service_name,
           c.billing_currency AS currency, sum(c.billed_cost) AS billed_cost,
           sum(c.effective_cost) AS effective_cost, sum(c.list_cost) AS list_cost
    FROM allocation_refs r
    JOIN charges c USING (charge_id)
    WHERE r.share_no > 0 AND c.billing_period = $period
    GROUP BY ALL
),
allocated AS (
    SELECT k.billing_period, k.provider, k.billing_account_id, k.sub_account_id, a.project, a.phase, a.method,
           a.experiment_id, a.cost_category, k.service_name, a.rule, k.currency, a.billed_cost, a.effective_cost,
           a.list_cost
    FROM allocation_rows a
    JOIN charge_kinds k USING (kind_id)
    WHERE a.share_no > 0 AND k.billing_period = $period
    UNION ALL
    SELECT w.billing_period, w.provider, w.billing_account_id, w.sub_account_id, t.project, t.phase, t.method,
           t.experiment_id, t.cost_category, w.service_name, t.rule, w.currency, w.billed_cost, w.effective_cost,
           w.list_cost
    FROM whole w
    JOIN allocation_tuples t USING (tuple_id)
)
SELECT /*dimensions*/, sum(billed_cost), sum(effective_cost), sum(list_cost)
FROM allocated
GROUP BY ALL
ORDER BY ALL
