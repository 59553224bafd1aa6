-- Record the schema version this trainledger wrote the warehouse with.
-- Grain: one row. Parameters: $version (the schema version, an integer).
INSERT OR REPLACE INTO trainledger_meta VALUES ('schema_version', CAST($version AS VARCHAR))
