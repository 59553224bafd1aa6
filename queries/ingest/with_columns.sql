-- A view over another with extra columns: typed NULLs for the optional columns a file lacks (schemas vary
-- by month), JSON text read as maps, legacy names renamed. Grain: one row per row of {{view}}.
-- Parameters: none. Slots: {{made}} (the view made), {{view}}, {{select}} (the select list over {{view}}).
CREATE OR REPLACE TEMP VIEW {{made}} AS
SELECT {{select}} FROM {{view}}
