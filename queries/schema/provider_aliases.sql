-- Every name that means a provider (core/providers.py: its id, its FOCUS name, its aliases), lowercased,
-- with the provider's id, for this session: the macro provider_id (schema/warehouse.sql) reads it.
-- Temporary, filled from Python on every open, as schema/providers. Grain: name.
-- Parameters: $alias (the names), $provider (each name's provider id, same order).
CREATE OR REPLACE TEMP TABLE provider_aliases AS
SELECT unnest($alias) AS alias, unnest($provider) AS provider
