-- The allocations of one billing period, every column of the view `allocations`, for the Python API's
-- lazy frame (`Ledger.allocations`, read as Arrow batches; `export` sums the same rows).
-- Grain: allocation share. Parameters: $period (YYYY-MM).
SELECT * FROM allocations WHERE billing_period = $period
