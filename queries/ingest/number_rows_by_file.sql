-- A text scan with file_row_number (0-based, per file), numbered per file as the scan delivers it
-- (legacy CUR chunks, JSON Lines exports). Grain: one row per file row. Parameters: none.
-- Slots: {{view}} (the view made), {{scan}} (the scan it numbers).
CREATE OR REPLACE TEMP VIEW {{view}} AS
SELECT *, CAST(row_number() OVER (PARTITION BY filename) - 1 AS BIGINT) AS file_row_number
FROM {{scan}}
