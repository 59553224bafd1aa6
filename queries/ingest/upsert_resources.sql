-- Record the live resources of one inventory pull (temp table seen_resources), keeping first_seen.
-- Grain: provider × resource. Parameters: $now (UTC time of the pull, first/last seen).
INSERT INTO resources (provider, resource_id, source, resource_type, region_id, tags, aliases, first_seen, last_seen)
SELECT provider, resource_id, source, resource_type, region_id, tags, aliases, $now, $now
FROM seen_resources
ON CONFLICT (provider, resource_id) DO UPDATE SET
    source = excluded.source,
    resource_type = excluded.resource_type,
    region_id = excluded.region_id,
    tags = excluded.tags,
    aliases = excluded.aliases,
    last_seen = excluded.last_seen
