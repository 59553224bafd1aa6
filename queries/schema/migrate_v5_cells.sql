-- Schema 4 -> 5: the references already written summed into allocation_cells (as attribute/cells does for
-- the periods it attributes), so reports read the same figures before the next attribution.
-- Grain: tuple × kind × day. Parameters: none.
INSERT INTO allocation_cells
SELECT
    r.tuple_id,
    charge_kind_id(c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id, c.service_name,
                   c.charge_category, c.pricing_category, c.billing_currency) AS kind_id,
    date_trunc('day', c.charge_period_start) AS charge_day, count(*) AS charges,
    sum(c.billed_cost) AS billed_cost, sum(c.effective_cost) AS effective_cost, sum(c.list_cost) AS list_cost
FROM allocation_refs r
JOIN charges c USING (charge_id)
WHERE r.share_no > 0
GROUP BY ALL
