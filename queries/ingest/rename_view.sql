-- Move a scan aside so a view of the same name can show it with other file names.
-- Grain: none (DDL). Parameters: none. Slots: {{view}}, {{to}}.
ALTER VIEW {{view}} RENAME TO {{to}}
