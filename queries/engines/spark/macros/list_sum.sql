-- DuckDB's list_sum, which Spark lacks, for the lists of money queries/ sums (a GCP row's credits, DECIMAL(38,
-- 12)): a fold from 0, each step kept DECIMAL(38, 12) (Spark widens a sum's type; ANSI mode raises on
-- overflow). NULL for a NULL list, and an empty list sums to 0 where DuckDB gives NULL: the caller's
-- coalesce(..., 0) makes them alike. Grain: one value. No parameters (arguments only).
(l) = aggregate(l, CAST(0 AS DECIMAL(38, 12)), (total, x) -> CAST(total + x AS DECIMAL(38, 12)))
