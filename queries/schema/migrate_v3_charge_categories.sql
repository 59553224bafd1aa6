-- Schema 2 -> 3: the provider ids of charge_categories through the provider table (schema/provider_id: a FOCUS file's
-- ProviderName was stored lowercased before the table, so Microsoft is azure, Oracle oci, no longer
-- microsoft, oracle); an id the table does not know stays as it is. Grain: charge_categories row. Parameters: none.
UPDATE charge_categories SET provider = provider_id(provider) WHERE provider <> provider_id(provider)
