-- The schema version of a warehouse written before versions were stored, told once from its layout:
-- 1 for an unreleased 0.1 development build (text charge ids, charges.source_file, or allocations as a
-- table rather than the view over allocation_rows), else 2 (that layout, or a new empty file).
-- Grain: one row. No parameters.
SELECT CASE
    WHEN EXISTS (
        SELECT 1 FROM information_schema.columns
        WHERE table_name = 'charges' AND column_name = 'charge_id' AND data_type <> 'BIGINT'
    ) OR EXISTS (
        SELECT 1 FROM information_schema.columns WHERE table_name = 'charges' AND column_name = 'source_file'
    ) OR EXISTS (
        SELECT 1 FROM information_schema.tables WHERE table_name = 'allocations' AND table_type = 'BASE TABLE'
    ) THEN 1
    ELSE 2
END
