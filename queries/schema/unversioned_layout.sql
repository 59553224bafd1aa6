-- The schema version of a warehouse written before versions were stored, told once from its layout:
-- 1 for an unreleased 0.1 development build (text charge ids, charges.source_file, or allocations as a
-- table rather than the view over allocation_rows), $current for a new empty file (no table of its own yet;
-- the session's temporary tables aside), 2 for charges without host_provider, 3 without allocation_refs,
-- 4 without allocation_cells, else 5 (a layout made by schema/warehouse.sql alone, as a test or a tool may
-- make it, whose version was never stamped).
-- Grain: one row. Parameters: $current (the schema version this trainledger writes).
SELECT CASE
    WHEN EXISTS (
        SELECT 1 FROM information_schema.columns
        WHERE table_name = 'charges' AND column_name = 'charge_id' AND data_type <> 'BIGINT'
    ) OR EXISTS (
        SELECT 1 FROM information_schema.columns WHERE table_name = 'charges' AND column_name = 'source_file'
    ) OR EXISTS (
        SELECT 1 FROM information_schema.tables WHERE table_name = 'allocations' AND table_type = 'BASE TABLE'
    ) THEN 1
    WHEN NOT EXISTS (SELECT 1 FROM duckdb_tables() WHERE NOT temporary) THEN $current
    WHEN NOT EXISTS (
        SELECT 1 FROM information_schema.columns WHERE table_name = 'charges' AND column_name = 'host_provider'
    ) THEN 2
    WHEN NOT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_name = 'allocation_refs') THEN 3
    WHEN NOT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_name = 'allocation_cells') THEN 4
    ELSE 5
END
