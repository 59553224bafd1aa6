-- A catalog pull replaces the source's list prices whole. Grain: one source. Parameters: $source.
DELETE FROM prices WHERE source = $source
