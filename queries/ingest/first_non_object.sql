-- The first cell of a map column written as JSON text (CUR 2.0 csv) that is not a JSON object.
-- Grain: at most one row (file, row, first 60 characters). Parameters: none.
-- Slots: {{view}} (the numbered scan), {{column}} (the map column).
SELECT filename, file_row_number + 1, left({{column}}, 60)
FROM {{view}}
WHERE nullif(trim({{column}}), '') IS NOT NULL
  AND (NOT json_valid({{column}}) OR json_type({{column}}) <> 'OBJECT')
ORDER BY 1, 2
LIMIT 1
