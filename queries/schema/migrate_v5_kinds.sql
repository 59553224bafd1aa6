-- Schema 4 -> 5: the kinds of every charge placed whole, which version 4 dropped after attribution (only
-- stored shares named a kind), for schema/migrate_v5_cells. As attribute/kinds over every period.
-- Grain: kind. Parameters: none.
INSERT INTO charge_kinds
SELECT d.*
FROM (
    SELECT DISTINCT
        charge_kind_id(c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id,
                       c.service_name, c.charge_category, c.pricing_category, c.billing_currency) AS kind_id,
        c.source, c.provider, c.billing_period, c.billing_account_id, c.sub_account_id, c.service_name,
        c.charge_category, c.pricing_category, c.billing_currency
    FROM allocation_refs r
    JOIN charges c USING (charge_id)
    WHERE r.share_no > 0
) d
WHERE d.kind_id NOT IN (SELECT kind_id FROM charge_kinds)
