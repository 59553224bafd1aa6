-- DuckDB's lcm(a, b), which Spark lacks, through gcd (queries/engines/spark/macros/gcd.sql).
-- Grain: one value. No parameters (arguments only).
(a, b) = CASE WHEN a = 0 OR b = 0 THEN 0 ELSE CAST(abs(a div gcd(a, b) * b) AS DECIMAL(38, 0)) END
