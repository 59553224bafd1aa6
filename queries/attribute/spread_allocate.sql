-- With `shared = "proportional"`: each shared charge (temp table `spread_charges`) split over its group's
-- receivers (temp table `spread_receivers`) so that the shares sum to the charge exactly, for billed,
-- effective and list cost alike: integer units of 1e-12, the floor of each weighted part, and the leftover
-- units given one each to the largest remainders (ties by share number), as `attribute_allocate` splits.
-- The split depends only on the amounts and the group's weights, so it is worked out once per distinct
-- (group, billed, effective, list) and joined to every charge with those amounts (an hourly fee repeats
-- its amount all month): the window functions see a few thousand rows, not charges x receivers.
-- Rows keep rule `shared` and the charge's own reason. Grain: charge x receiver. No parameters.
INSERT INTO allocation_rows
WITH amounts AS (
    SELECT DISTINCT group_no, b_units, e_units, l_units FROM spread_charges
),
parts AS (
    SELECT
        a.group_no, a.b_units, a.e_units, a.l_units, r.receiver_no, r.project, r.phase, r.method,
        r.experiment_id,
        (abs(a.b_units) * r.weight) // r.total_weight AS b_base,
        (abs(a.b_units) * r.weight) % r.total_weight AS b_rem,
        (abs(a.e_units) * r.weight) // r.total_weight AS e_base,
        (abs(a.e_units) * r.weight) % r.total_weight AS e_rem,
        (abs(a.l_units) * r.weight) // r.total_weight AS l_base,
        (abs(a.l_units) * r.weight) % r.total_weight AS l_rem
    FROM amounts a
    JOIN spread_receivers r USING (group_no)
),
ranked AS (
    SELECT
        *,
        abs(b_units) - sum(b_base) OVER amount AS b_left,
        abs(e_units) - sum(e_base) OVER amount AS e_left,
        abs(l_units) - sum(l_base) OVER amount AS l_left,
        row_number() OVER (PARTITION BY group_no, b_units, e_units, l_units ORDER BY b_rem DESC, receiver_no)
            AS b_rank,
        row_number() OVER (PARTITION BY group_no, b_units, e_units, l_units ORDER BY e_rem DESC, receiver_no)
            AS e_rank,
        row_number() OVER (PARTITION BY group_no, b_units, e_units, l_units ORDER BY l_rem DESC, receiver_no)
            AS l_rank
    FROM parts
    WINDOW amount AS (PARTITION BY group_no, b_units, e_units, l_units)
),
exact AS (
    SELECT
        group_no, b_units, e_units, l_units, receiver_no, project, phase, method, experiment_id,
        CAST(CAST(sign(b_units) * (b_base + CASE WHEN b_rank <= b_left THEN 1 ELSE 0 END) AS DECIMAL(38, 0))
             * CAST('0.000000000001' AS DECIMAL(38, 12)) AS DECIMAL(38, 12)) AS billed_cost,
        CAST(CAST(sign(e_units) * (e_base + CASE WHEN e_rank <= e_left THEN 1 ELSE 0 END) AS DECIMAL(38, 0))
             * CAST('0.000000000001' AS DECIMAL(38, 12)) AS DECIMAL(38, 12)) AS effective_cost,
        CAST(CAST(sign(l_units) * (l_base + CASE WHEN l_rank <= l_left THEN 1 ELSE 0 END) AS DECIMAL(38, 0))
             * CAST('0.000000000001' AS DECIMAL(38, 12)) AS DECIMAL(38, 12)) AS list_cost
    FROM ranked
)
SELECT
    c.charge_id, CAST(x.receiver_no AS INTEGER), c.kind_id, c.charge_period_start, c.charge_period_end,
    x.project, x.phase, x.method, x.experiment_id, c.cost_category, c.rule, c.reason, x.billed_cost,
    x.effective_cost, x.list_cost
FROM spread_charges c
JOIN exact x USING (group_no, b_units, e_units, l_units)
