-- DuckDB's gcd(a, b), which Spark lacks: Euclid's algorithm, at most 92 steps for values below 2^63
-- (consecutive Fibonacci numbers are the worst case). Grain: one value. No parameters (arguments only).
(a, b) =
aggregate(sequence(1, 92), named_struct('x', a, 'y', b),
          (s, i) -> CASE WHEN s.y = 0 THEN s ELSE named_struct('x', s.y, 'y', s.x % s.y) END,
          s -> abs(s.x))
