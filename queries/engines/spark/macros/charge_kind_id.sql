-- Spark's body of the macro charge_kind_id (queries/schema/warehouse.sql): a 64-bit hash of a charge's kind.
-- Spark's hash functions skip NULL arguments, so ('a', NULL) and (NULL, 'a') would hash alike: each value
-- is preceded by whether it is NULL. Grain: one value per charge. No parameters (macro arguments only).
(source, provider, billing_period, billing_account_id, sub_account_id, service_name, charge_category,
 pricing_category, currency) =
xxhash64(source, provider, billing_period, isnull(billing_account_id), billing_account_id,
         isnull(sub_account_id), sub_account_id, isnull(service_name), service_name, charge_category,
         isnull(pricing_category), pricing_category, currency)
