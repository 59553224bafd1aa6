-- Drop one of this connection's temporary tables before it is staged again.
-- Grain: none (DDL). Parameters: none. Slots: {{name}} (the table).
DROP TABLE IF EXISTS temp.{{name}}
