-- Read a scan without row numbers (CSV) once into a temporary table, adding file_row_number (0-based, per
-- file). row_number() OVER () streams in scan order, which DuckDB keeps for a multi-file scan; numbering by
-- PARTITION BY filename alone would reorder rows, and row numbers (in errors, in source_row) must not change.
-- Grain: one row per file row. Parameters: none. Slots: {{table}} (the table made), {{scan}} (the text view).
CREATE TEMP TABLE {{table}} AS
SELECT * EXCLUDE (scan_row),
       CAST(scan_row - min(scan_row) OVER (PARTITION BY filename) AS BIGINT) AS file_row_number
FROM (SELECT *, row_number() OVER () AS scan_row FROM {{scan}})
ORDER BY scan_row
