-- Spark's attribute/spread_allocate (see queries/attribute/spread_allocate.sql for the rule): each shared
-- charge (temp table `spread_charges`) split over its group's receivers (temp table `spread_receivers`) so
-- that the shares sum to the charge exactly, for billed, effective and list cost alike: integer units of
-- 1e-12, the floor of each weighted part, and the leftover units given one each to the largest remainders
-- (ties by share number), worked out once per distinct (group, billed, effective, list).
-- Grain: charge x receiver. No parameters.
-- Why an override: DuckDB computes in HUGEINT with `//`; Spark's `div` returns a 64-bit long. Here the
-- products are DECIMAL(38, 0), the floor is (x - x % t) / t (an exact multiple, so the decimal quotient is
-- whole), the sign is applied by CASE (Spark's sign() returns a DOUBLE, which would round a large share),
-- and units become money as whole and fractional parts, as in engines/spark/attribute/allocate.sql.
INSERT INTO allocation_rows
WITH amounts AS (
    SELECT DISTINCT group_no, b_units, e_units, l_units FROM spread_charges
),
products AS (
    SELECT
        a.group_no, a.b_units, a.e_units, a.l_units, r.receiver_no, r.project, r.phase, r.method,
        r.experiment_id,
        CAST(r.total_weight AS DECIMAL(38, 0)) AS total_weight,
        abs(CAST(a.b_units AS DECIMAL(38, 0))) * CAST(r.weight AS DECIMAL(38, 0)) AS b_num,
        abs(CAST(a.e_units AS DECIMAL(38, 0))) * CAST(r.weight AS DECIMAL(38, 0)) AS e_num,
        abs(CAST(a.l_units AS DECIMAL(38, 0))) * CAST(r.weight AS DECIMAL(38, 0)) AS l_num
    FROM amounts a
    JOIN spread_receivers r USING (group_no)
),
parts AS (
    SELECT
        *,
        CAST((b_num - b_num % total_weight) / total_weight AS DECIMAL(38, 0)) AS b_base, b_num % total_weight AS b_rem,
        CAST((e_num - e_num % total_weight) / total_weight AS DECIMAL(38, 0)) AS e_base, e_num % total_weight AS e_rem,
        CAST((l_num - l_num % total_weight) / total_weight AS DECIMAL(38, 0)) AS l_base, l_num % total_weight AS l_rem
    FROM products
),
ranked AS (
    SELECT
        *,
        abs(b_units) - sum(b_base) OVER (PARTITION BY group_no, b_units, e_units, l_units) AS b_left,
        abs(e_units) - sum(e_base) OVER (PARTITION BY group_no, b_units, e_units, l_units) AS e_left,
        abs(l_units) - sum(l_base) OVER (PARTITION BY group_no, b_units, e_units, l_units) AS l_left,
        row_number() OVER (PARTITION BY group_no, b_units, e_units, l_units ORDER BY b_rem DESC, receiver_no)
            AS b_rank,
        row_number() OVER (PARTITION BY group_no, b_units, e_units, l_units ORDER BY e_rem DESC, receiver_no)
            AS e_rank,
        row_number() OVER (PARTITION BY group_no, b_units, e_units, l_units ORDER BY l_rem DESC, receiver_no)
            AS l_rank
    FROM parts
),
signed AS (
    SELECT
        group_no, b_units, e_units, l_units, receiver_no, project, phase, method, experiment_id,
        CAST(CASE WHEN b_units < 0 THEN -1 ELSE 1 END * (b_base + CASE WHEN b_rank <= b_left THEN 1 ELSE 0 END)
             AS DECIMAL(38, 0)) AS b_out,
        CAST(CASE WHEN e_units < 0 THEN -1 ELSE 1 END * (e_base + CASE WHEN e_rank <= e_left THEN 1 ELSE 0 END)
             AS DECIMAL(38, 0)) AS e_out,
        CAST(CASE WHEN l_units < 0 THEN -1 ELSE 1 END * (l_base + CASE WHEN l_rank <= l_left THEN 1 ELSE 0 END)
             AS DECIMAL(38, 0)) AS l_out
    FROM ranked
),
exact AS (
    SELECT
        group_no, b_units, e_units, l_units, receiver_no, project, phase, method, experiment_id,
        CAST(CAST((b_out - b_out % 1000000000000) / 1000000000000 AS DECIMAL(25, 0))
             + CAST(b_out % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12)) AS DECIMAL(38, 12))
            AS billed_cost,
        CAST(CAST((e_out - e_out % 1000000000000) / 1000000000000 AS DECIMAL(25, 0))
             + CAST(e_out % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12)) AS DECIMAL(38, 12))
            AS effective_cost,
        CAST(CAST((l_out - l_out % 1000000000000) / 1000000000000 AS DECIMAL(25, 0))
             + CAST(l_out % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12)) AS DECIMAL(38, 12))
            AS list_cost
    FROM signed
)
SELECT
    c.charge_id, CAST(x.receiver_no AS INT), c.kind_id, c.charge_period_start, c.charge_period_end,
    x.project, x.phase, x.method, x.experiment_id, c.cost_category, c.rule, c.reason, x.billed_cost,
    x.effective_cost, x.list_cost
FROM spread_charges c
JOIN exact x USING (group_no, b_units, e_units, l_units)
