-- Drop one of this connection's temporary views (a file scan) before it is made again.
-- Grain: none (DDL). Parameters: none. Slots: {{name}} (the view).
DROP VIEW IF EXISTS temp.{{name}}
