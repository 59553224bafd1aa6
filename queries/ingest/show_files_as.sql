-- A scan whose filename column reads as the original location (raw_file_names), not the cache path.
-- Grain: one row per row of {{local}}. Parameters: none. Slots: {{view}} (made), {{local}} (the scan).
CREATE TEMP VIEW {{view}} AS
SELECT v.* REPLACE (coalesce(n.display, v.filename) AS filename)
FROM {{local}} v
LEFT JOIN raw_file_names n ON n.local = v.filename
