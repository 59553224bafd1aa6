-- The inventory's tags and aliases, for attribution's fingerprint.
-- Grain: provider x resource, in a fixed order. No parameters.
SELECT provider, resource_id, tags, aliases FROM resources ORDER BY ALL
