-- Every row of the price sheet, with whatever columns it has; the estimator keeps those with a GPU type
-- and a price. Grain: one row per price-sheet row. Parameters: none.
SELECT * FROM prices
