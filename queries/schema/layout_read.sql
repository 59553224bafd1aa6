-- The digest of the schema/warehouse statements the warehouse was last brought up to date with (table
-- trainledger_meta): a writer whose statements have the same digest has nothing to create.
-- Grain: at most one row. No parameters.
SELECT value FROM trainledger_meta WHERE key = 'layout'
