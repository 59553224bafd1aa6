-- Split the charges that have shares (temp table `shares`) so that the shares sum to the charge exactly,
-- for billed, effective and list cost alike: integer units of 1e-12, floor of each weighted part, and the
-- leftover units given one each to the largest remainders (ties by share number). A share cut from a time
-- segment carries that segment as its period. Grain: charge x share. No parameters; the shares carry their
-- charges' columns.
INSERT INTO allocation_rows
WITH numbered AS (
    SELECT
        s.*,
        row_number() OVER (PARTITION BY s.charge_id
                           ORDER BY s.seg_start NULLS FIRST, s.experiment_id NULLS LAST, s.phase NULLS LAST,
                                    s.project NULLS LAST, s.method NULLS LAST, s.rule, s.reason NULLS LAST)
            AS share_no,
        sum(s.weight) OVER (PARTITION BY s.charge_id) AS total_weight
    FROM shares s
),
units AS (
    SELECT
        n.*,
        to_units(n.billed_cost) AS b_units,
        to_units(n.effective_cost) AS e_units,
        to_units(n.list_cost) AS l_units
    FROM numbered n
),
floored AS (
    SELECT
        *,
        (abs(b_units) * weight) // total_weight AS b_base, (abs(b_units) * weight) % total_weight AS b_rem,
        (abs(e_units) * weight) // total_weight AS e_base, (abs(e_units) * weight) % total_weight AS e_rem,
        (abs(l_units) * weight) // total_weight AS l_base, (abs(l_units) * weight) % total_weight AS l_rem
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
)
SELECT
    charge_id, CAST(share_no AS INTEGER),
    charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name,
                   charge_category, pricing_category, billing_currency),
    coalesce(seg_start, charge_period_start), coalesce(seg_end, charge_period_end), project, phase, method,
    experiment_id, cost_category, rule, reason,
    CAST(CAST(sign(b_units) * (b_base + CASE WHEN b_rank <= b_left THEN 1 ELSE 0 END) AS DECIMAL(38, 0))
         * CAST('0.000000000001' AS DECIMAL(38, 12)) AS DECIMAL(38, 12)),
    CAST(CAST(sign(e_units) * (e_base + CASE WHEN e_rank <= e_left THEN 1 ELSE 0 END) AS DECIMAL(38, 0))
         * CAST('0.000000000001' AS DECIMAL(38, 12)) AS DECIMAL(38, 12)),
    CAST(CAST(sign(l_units) * (l_base + CASE WHEN l_rank <= l_left THEN 1 ELSE 0 END) AS DECIMAL(38, 0))
         * CAST('0.000000000001' AS DECIMAL(38, 12)) AS DECIMAL(38, 12))
FROM ranked
