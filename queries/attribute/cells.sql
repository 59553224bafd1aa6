-- The charges of the periods placed whole, summed per tuple, kind and UTC day into allocation_cells, once
-- all references are written: the one join of every reference with its charge, here rather than in each
-- report. One range of charge ids (of files: an id is its file's slot x 2^32 + its row) at a time, so each
-- join stays in memory (at 100M charges in one go it spilled: 46 s, against 9.8 s in ten ranges) and the
-- tables' zone maps skip the rest. Runs after attribute/kinds, so every kind it names is in charge_kinds.
-- Grain: tuple × kind × day within the range. Parameters: $periods (list of YYYY-MM), $low and $high (the
-- range's first and last charge id).
INSERT INTO allocation_cells
SELECT
    r.tuple_id,
    charge_kind_id(c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id, c.service_name,
                   c.charge_category, c.pricing_category, c.billing_currency) AS kind_id,
    date_trunc('day', c.charge_period_start) AS charge_day, count(*) AS charges,
    sum(c.billed_cost) AS billed_cost, sum(c.effective_cost) AS effective_cost, sum(c.list_cost) AS list_cost
FROM allocation_refs r
JOIN charges c USING (charge_id)
WHERE r.charge_id BETWEEN $low AND $high AND c.charge_id BETWEEN $low AND $high AND r.share_no > 0
  AND list_contains($periods, c.billing_period)
GROUP BY ALL
