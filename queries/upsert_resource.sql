-- Record one live resource from an inventory connector: new ones are inserted, known ones get their
-- current tags, aliases and last_seen (first_seen is kept). Grain: provider × resource.
-- Parameters: $provider, $resource_id, $source, $resource_type, $region_id, $tags (JSON object text),
-- $aliases (list of other names the bill may use), $seen (UTC timestamp of this pull).
INSERT INTO resources (provider, resource_id, source, resource_type, region_id, tags, aliases, first_seen, last_seen)
VALUES ($provider, $resource_id, $source, $resource_type, $region_id, $tags, $aliases, $seen, $seen)
ON CONFLICT (provider, resource_id) DO UPDATE SET
    source = excluded.source,
    resource_type = excluded.resource_type,
    region_id = excluded.region_id,
    tags = excluded.tags,
    aliases = excluded.aliases,
    last_seen = excluded.last_seen
