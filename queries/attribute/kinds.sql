-- The kinds (table charge_kinds) of the charges of the given periods that the table does not hold yet,
-- compared column by column: a kind whose hash some other kind already has is inserted too, and fails the
-- primary key (never merged). Grain: kind. Parameters: $periods (list of YYYY-MM).
INSERT INTO charge_kinds
SELECT d.*
FROM (
    SELECT DISTINCT
        charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name,
                       charge_category, pricing_category, billing_currency) AS kind_id,
        source, provider, billing_period, billing_account_id, sub_account_id, service_name, charge_category,
        pricing_category, billing_currency
    FROM charges
    WHERE list_contains($periods, billing_period)
) d
WHERE NOT EXISTS (
    SELECT 1 FROM charge_kinds k
    WHERE k.kind_id = d.kind_id AND k.source = d.source AND k.provider = d.provider
      AND k.billing_period = d.billing_period
      AND k.billing_account_id IS NOT DISTINCT FROM d.billing_account_id
      AND k.sub_account_id IS NOT DISTINCT FROM d.sub_account_id
      AND k.service_name IS NOT DISTINCT FROM d.service_name AND k.charge_category = d.charge_category
      AND k.pricing_category IS NOT DISTINCT FROM d.pricing_category AND k.currency = d.billing_currency
)
