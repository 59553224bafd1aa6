-- The first file of a scan, to name in a message about the whole delivery's layout.
-- Grain: at most one row (file). Parameters: none. Slots: {{view}} (the scan).
SELECT min(filename) FROM {{view}}
