-- Whether the warehouse has a price sheet (a warehouse opened before the schema was written has none).
-- Grain: one row, the count of tables named prices (0 or 1). Parameters: none.
SELECT count(*) FROM information_schema.tables WHERE table_name = 'prices'
