-- The charges of the periods placed whole, summed per tuple, kind and UTC day into allocation_cells, once
-- all references are written: the one join of every reference with its charge, here rather than in each
-- report. Runs after attribute/kinds, so every kind it names is in charge_kinds.
-- Grain: tuple × kind × day. Parameters: $periods (list of YYYY-MM).
INSERT INTO allocation_cells
SELECT
    r.tuple_id,
    charge_kind_id(c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id, c.service_name,
                   c.charge_category, c.pricing_category, c.billing_currency) AS kind_id,
    date_trunc('day', c.charge_period_start) AS charge_day, count(*) AS charges,
    sum(c.billed_cost) AS billed_cost, sum(c.effective_cost) AS effective_cost, sum(c.list_cost) AS list_cost
FROM allocation_refs r
JOIN charges c USING (charge_id)
WHERE r.share_no > 0 AND list_contains($periods, c.billing_period)
GROUP BY ALL
