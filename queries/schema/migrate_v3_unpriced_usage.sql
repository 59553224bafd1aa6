-- Schema 2 -> 3: the provider ids of unpriced_usage through the provider table (schema/provider_id: a FOCUS file's
-- ProviderName was stored lowercased before the table, so Microsoft is azure, Oracle oci, no longer
-- microsoft, oracle); an id the table does not know stays as it is. Grain: unpriced_usage row. Parameters: none.
UPDATE unpriced_usage SET provider = provider_id(provider) WHERE provider <> provider_id(provider)
