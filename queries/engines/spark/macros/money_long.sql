-- Spark's body of the macro money_long: every value is looked at (the residue UDF is NULL where rounding
-- took nothing away), since DuckDB's cheap test reads typeof(), which Spark lacks. Grain: one value.
-- No parameters (arguments only).
(x) = x IS NOT NULL
