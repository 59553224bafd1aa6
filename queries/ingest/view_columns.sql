-- The columns (names and types, read from the result description) of a staged view; no rows.
-- Grain: none. Parameters: none. Slots: {{view}}.
SELECT * FROM {{view}} LIMIT 0
