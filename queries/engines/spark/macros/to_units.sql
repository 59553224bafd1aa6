-- Spark's body of the macro to_units: exact integer units of 1e-12 of a DECIMAL(38, 12) value, as
-- DECIMAL(38, 0) (Spark has no HUGEINT). The product keeps 32 integer digits, so values below 1e20 are
-- exact; beyond, Spark's ANSI mode raises an overflow rather than round. Grain: one value. No parameters.
(x) = CAST(x * 1000000000000 AS DECIMAL(38, 0))
