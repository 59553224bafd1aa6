-- Spark's attribute/allocate (see queries/attribute/allocate.sql for the rule): split the charges that have
-- shares (temp view `shares`) so that the shares sum to the charge exactly, for billed, effective and list
-- cost alike: integer units of 1e-12, floor of each weighted part, and the leftover units given one each to
-- the largest remainders (ties by share number). Grain: charge x share. No parameters.
-- Why an override: DuckDB computes in HUGEINT with `//`; Spark has no 128-bit integer and its `div` returns a
-- 64-bit long. Here units and products are DECIMAL(38, 0) (exact up to 1e38, Spark's ANSI mode raises
-- beyond, DuckDB's HUGEINT stops at 1.7e38), the floor is (x - x % t) / t (an exact multiple, so the
-- decimal quotient is whole), units become money as whole and fractional parts, so no scale is lost, and
-- the sign is applied by CASE (Spark's sign() returns a DOUBLE, which would round a large share).
INSERT INTO allocation_rows
WITH numbered AS (
    SELECT
        s.*,
        row_number() OVER (PARTITION BY s.charge_id
                           ORDER BY s.seg_start NULLS FIRST, s.experiment_id NULLS LAST, s.phase NULLS LAST,
                                    s.project NULLS LAST, s.method NULLS LAST, s.rule, s.reason NULLS LAST)
            AS share_no,
        CAST(sum(s.weight) OVER (PARTITION BY s.charge_id) AS DECIMAL(38, 0)) AS total_weight
    FROM shares s
),
units AS (
    SELECT
        n.*,
        abs(CAST(n.billed_cost * 1000000000000 AS DECIMAL(38, 0))) * CAST(n.weight AS DECIMAL(38, 0)) AS b_num,
        abs(CAST(n.effective_cost * 1000000000000 AS DECIMAL(38, 0))) * CAST(n.weight AS DECIMAL(38, 0)) AS e_num,
        abs(CAST(n.list_cost * 1000000000000 AS DECIMAL(38, 0))) * CAST(n.weight AS DECIMAL(38, 0)) AS l_num,
        CAST(n.billed_cost * 1000000000000 AS DECIMAL(38, 0)) AS b_units,
        CAST(n.effective_cost * 1000000000000 AS DECIMAL(38, 0)) AS e_units,
        CAST(n.list_cost * 1000000000000 AS DECIMAL(38, 0)) AS l_units
    FROM numbered n
),
floored AS (
    SELECT
        *,
        CAST((b_num - b_num % total_weight) / total_weight AS DECIMAL(38, 0)) AS b_base, b_num % total_weight AS b_rem,
        CAST((e_num - e_num % total_weight) / total_weight AS DECIMAL(38, 0)) AS e_base, e_num % total_weight AS e_rem,
        CAST((l_num - l_num % total_weight) / total_weight AS DECIMAL(38, 0)) AS l_base, l_num % total_weight AS l_rem
    FROM units
),
ranked AS (
    SELECT
        *,
        abs(b_units) - sum(b_base) OVER (PARTITION BY charge_id) AS b_left,
        abs(e_units) - sum(e_base) OVER (PARTITION BY charge_id) AS e_left,
        abs(l_units) - sum(l_base) OVER (PARTITION BY charge_id) AS l_left,
        row_number() OVER (PARTITION BY charge_id ORDER BY b_rem DESC, share_no) AS b_rank,
        row_number() OVER (PARTITION BY charge_id ORDER BY e_rem DESC, share_no) AS e_rank,
        row_number() OVER (PARTITION BY charge_id ORDER BY l_rem DESC, share_no) AS l_rank
    FROM floored
),
signed AS (
    SELECT
        *,
        CAST(CASE WHEN b_units < 0 THEN -1 ELSE 1 END * (b_base + CASE WHEN b_rank <= b_left THEN 1 ELSE 0 END)
             AS DECIMAL(38, 0)) AS b_out,
        CAST(CASE WHEN e_units < 0 THEN -1 ELSE 1 END * (e_base + CASE WHEN e_rank <= e_left THEN 1 ELSE 0 END)
             AS DECIMAL(38, 0)) AS e_out,
        CAST(CASE WHEN l_units < 0 THEN -1 ELSE 1 END * (l_base + CASE WHEN l_rank <= l_left THEN 1 ELSE 0 END)
             AS DECIMAL(38, 0)) AS l_out
    FROM ranked
)
SELECT
    charge_id, CAST(share_no AS INT),
    charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name,
                   charge_category, pricing_category, billing_currency),
    coalesce(seg_start, charge_period_start), coalesce(seg_end, charge_period_end), project, phase, method,
    experiment_id, cost_category, rule, reason,
    CAST(CAST((b_out - b_out % 1000000000000) / 1000000000000 AS DECIMAL(25, 0))
         + CAST(b_out % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12)) AS DECIMAL(38, 12)),
    CAST(CAST((e_out - e_out % 1000000000000) / 1000000000000 AS DECIMAL(25, 0))
         + CAST(e_out % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12)) AS DECIMAL(38, 12)),
    CAST(CAST((l_out - l_out % 1000000000000) / 1000000000000 AS DECIMAL(25, 0))
         + CAST(l_out % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12)) AS DECIMAL(38, 12))
FROM signed
