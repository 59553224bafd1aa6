-- Schema 2 -> 3: the provider ids of charge_kinds through the provider table (schema/provider_id: a FOCUS
-- file's ProviderName was stored lowercased before the table, so Microsoft is azure, Oracle oci, no longer
-- microsoft, oracle), so reports read the new ids at once. A kind keeps its kind_id (the hash of its old
-- columns) until the next attribution, which the migration asks for, makes the kind again.
-- Grain: charge_kinds row. Parameters: none.
UPDATE charge_kinds SET provider = provider_id(provider) WHERE provider <> provider_id(provider)
