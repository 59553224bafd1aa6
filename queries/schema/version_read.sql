-- The schema version the warehouse was last written with (table trainledger_meta; a warehouse written
-- before versions were stored has no such table). Grain: at most one row. No parameters.
SELECT CAST(value AS INTEGER) FROM trainledger_meta WHERE key = 'schema_version'
