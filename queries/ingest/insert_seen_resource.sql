-- One resource of an inventory pull. Grain: one row. Parameters: positional (provider, resource_id,
-- source, resource_type, region_id, tags JSON, aliases).
INSERT INTO seen_resources VALUES (?, ?, ?, ?, ?, ?, ?)
