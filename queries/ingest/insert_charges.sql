-- Insert normalised rows (with source_file and source_row) into charges, each numbered by its file's
-- slot in this load (temp table load_files) and its row (charge_number, schema/warehouse.sql).
-- Grain: one row per charge. Parameters: $period (YYYY-MM; NULL: every row), and those of {{rows}}.
-- Slots: {{rows}} (a staged table, or the normalising query streamed straight from the files).
INSERT INTO charges BY NAME
SELECT r.* EXCLUDE (source_file),
       coalesce(charge_number(f.slot, r.source_row),
                error('cannot number row ' || coalesce(CAST(r.source_row AS VARCHAR), '?') || ' of '
                      || coalesce(r.source_file, '?') || ': not a file of this load, or beyond 2^32 rows'))
           AS charge_id
FROM {{rows}} r
LEFT JOIN load_files f ON f.name = r.source_file
WHERE $period IS NULL OR r.billing_period = $period
