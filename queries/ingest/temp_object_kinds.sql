-- Whether this connection holds a temporary table or view of a name (a registered file scan is a view),
-- so the right DROP replaces it. Grain: one row per object of that name ('TABLE' or 'VIEW').
-- Parameters: $name (table or view name).
SELECT 'TABLE' FROM duckdb_tables() WHERE temporary AND table_name = $name
UNION ALL
SELECT 'VIEW' FROM duckdb_views() WHERE temporary AND view_name = $name
