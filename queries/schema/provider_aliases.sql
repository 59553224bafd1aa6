-- Every name that means a provider (core/providers.py: its id, its FOCUS name, its aliases), lowercased,
-- with the provider's id, for this session: the macro provider_id (schema/provider_id) reads it. Its
-- columns have names no bill or table uses, so that the macro's argument (a column such as `provider`)
-- is never taken for one of them inside the macro's subquery.
-- Temporary, filled from Python on every open, as schema/providers. Grain: name.
-- Parameters: $alias (the names), $provider (each name's provider id, same order).
CREATE OR REPLACE TEMP TABLE provider_aliases AS
SELECT unnest($alias) AS provider_alias_name, unnest($provider) AS provider_alias_id
