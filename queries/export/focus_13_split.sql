-- The AllocatedRatio and quantities of the split charges' rows in the FOCUS 1.3 file (export/focus_13), in
-- integer units of 1e-12: r_units of the ratio, c_units of |ConsumedQuantity|, p_units of |PricingQuantity|.
-- The rules are export/focus_13's (the floor of each part, the units left over one each to the largest
-- remainders, ties by share number); an origin is a charge and part (the unused part of a commitment
-- purchase is its own). Only the rows of charges split into several shares, and only the columns the split
-- reads: windowed over by origin, these are keys and numbers, where the file's rows carry every column
-- (the 1M proportional month: 8.2M of its 9.2M rows, which DuckDB 2 could not window at the default memory
-- limit with every column, BENCHMARKS.md issue 33). A temporary table, read by export/focus_13 and dropped
-- after it.
-- Grain: charge x share x part, of split charges. Parameters: $period (YYYY-MM).
CREATE OR REPLACE TEMP TABLE focus_13_split AS
WITH rows AS (
    SELECT
        f.charge_id, f.part, f.share_no, f.shares, f."EffectiveCost", f."BilledCost", f."ListCost",
        f.consumed_whole, f.pricing_whole,
        sum(abs(to_units(f."EffectiveCost"))) OVER origin AS e_total,
        sum(abs(to_units(f."BilledCost"))) OVER origin AS b_total,
        sum(abs(to_units(f."ListCost"))) OVER origin AS l_total
    FROM focus_shares($period) f
    WHERE f.shares > 1
    WINDOW origin AS (PARTITION BY f.charge_id, f.part)
),
weighted AS (
    SELECT
        *,
        CASE
            WHEN e_total > 0 THEN abs(to_units("EffectiveCost"))
            WHEN b_total > 0 THEN abs(to_units("BilledCost"))
            WHEN l_total > 0 THEN abs(to_units("ListCost"))
            ELSE CAST(1 AS HUGEINT)
        END AS w,
        CASE
            WHEN e_total > 0 THEN e_total
            WHEN b_total > 0 THEN b_total
            WHEN l_total > 0 THEN l_total
            ELSE CAST(shares AS HUGEINT)
        END AS w_total
    FROM rows
),
ratio_floor AS (
    -- floor(w x 1e12 / w_total) = high x 1e6 + (rest x 1e6) // w_total, with rest = (w x 1e6) % w_total
    SELECT
        *,
        (w * 1000000) // w_total * 1000000 + ((w * 1000000) % w_total * 1000000) // w_total AS r_base,
        ((w * 1000000) % w_total * 1000000) % w_total AS r_rem
    FROM weighted
),
ratios AS (
    SELECT
        * EXCLUDE (r_base, r_rem),
        r_base + CASE
            WHEN row_number() OVER (PARTITION BY charge_id, part ORDER BY r_rem DESC, share_no)
                 <= 1000000000000 - sum(r_base) OVER (PARTITION BY charge_id, part) THEN 1 ELSE 0
        END AS r_units
    FROM ratio_floor
),
quantity_floor AS (
    -- each quantity's |units| as whole x 1e12 + fraction, so that x r_units stays inside HUGEINT
    SELECT
        *,
        abs(to_units(consumed_whole)) // 1000000000000 * r_units
            + abs(to_units(consumed_whole)) % 1000000000000 * r_units // 1000000000000 AS c_base,
        abs(to_units(consumed_whole)) % 1000000000000 * r_units % 1000000000000 AS c_rem,
        abs(to_units(pricing_whole)) // 1000000000000 * r_units
            + abs(to_units(pricing_whole)) % 1000000000000 * r_units // 1000000000000 AS p_base,
        abs(to_units(pricing_whole)) % 1000000000000 * r_units % 1000000000000 AS p_rem
    FROM ratios
),
quantities AS (
    SELECT
        *,
        c_base + CASE
            WHEN row_number() OVER (PARTITION BY charge_id, part ORDER BY c_rem DESC, share_no)
                 <= abs(to_units(consumed_whole)) - sum(c_base) OVER (PARTITION BY charge_id, part) THEN 1 ELSE 0
        END AS c_units,
        p_base + CASE
            WHEN row_number() OVER (PARTITION BY charge_id, part ORDER BY p_rem DESC, share_no)
                 <= abs(to_units(pricing_whole)) - sum(p_base) OVER (PARTITION BY charge_id, part) THEN 1 ELSE 0
        END AS p_units
    FROM quantity_floor
)
SELECT charge_id, part, share_no, r_units, c_units, p_units FROM quantities
