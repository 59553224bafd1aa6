-- Schema 2 -> 3: the provider ids of experiment_resources through the provider table (schema/provider_id: a FOCUS file's
-- ProviderName was stored lowercased before the table, so Microsoft is azure, Oracle oci, no longer
-- microsoft, oracle); an id the table does not know stays as it is. Grain: experiment_resources row. Parameters: none.
UPDATE experiment_resources SET provider = provider_id(provider) WHERE provider <> provider_id(provider)
