-- One tier of one SKU's list price. Grain: one row. Parameters: positional, in the column order of
-- prices (schema/warehouse.sql): provider, source, service, sku_id, description, resource_group,
-- usage_type, gpu_type, regions, unit, unit_description, tier_start, currency, price_per_unit,
-- effective_time, fetched_at.
INSERT INTO prices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
