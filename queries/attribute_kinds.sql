-- The kinds (table charge_kinds) of the charges of the given periods that the table does not hold yet.
-- DISTINCT over every column, not the hash alone: two kinds sharing a hash then fail the primary key.
-- Grain: kind. Parameters: $periods (list of YYYY-MM).
INSERT INTO charge_kinds
SELECT DISTINCT
    charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name,
                   charge_category, pricing_category, billing_currency) AS kind_id,
    source, provider, billing_period, billing_account_id, sub_account_id, service_name, charge_category,
    pricing_category, billing_currency
FROM charges
WHERE list_contains($periods, billing_period)
  AND charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name,
                     charge_category, pricing_category, billing_currency) NOT IN (SELECT kind_id FROM charge_kinds)
