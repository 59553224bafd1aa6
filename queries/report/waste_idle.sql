-- Idle cost on the resources each experiment used, within its run (hidden cost, SPEC §4).
-- An idle allocation covers one time segment of a charge that no run used; an experiment's part is that
-- segment's overlap with the run [started_at, ended_at) (the table macro run_spans: from the log, the first
-- window start and last window end when the run's own times are missing), in integer units of 1e-12, each
-- part floored.
-- Resources match by the bill's name or an inventory alias, as in attribution. Concurrent experiments on
-- one resource may both count the same idle segment; `report --by waste` counts every cent once.
-- The idle allocations are read from the tables behind the view `allocations` (the stored shares, and the
-- charges placed whole whose tuple's rule is idle), each joined once to its charge for the resource.
-- Grain: experiment x currency (those with idle cost). Parameters: $ids (list of experiment ids).
WITH names AS (SELECT provider, name, rkey FROM resource_names),
windows AS (
    SELECT * FROM experiment_resources WHERE experiment_id IN (SELECT unnest($ids))
),
used AS (
    SELECT DISTINCT x.experiment_id, coalesce(x.provider, n.provider) AS provider,
           coalesce(n.rkey, x.resource_id) AS rkey
    FROM windows x
    LEFT JOIN names n ON n.name = x.resource_id AND (x.provider IS NULL OR n.provider = x.provider)
),
bill_names AS (
    SELECT experiment_id, provider, rkey AS name FROM used
    UNION
    SELECT u.experiment_id, u.provider, n.name
    FROM used u JOIN names n ON n.rkey = u.rkey AND n.provider = u.provider
),
span AS (SELECT * FROM run_spans($ids)),
idle_allocations AS (
    SELECT a.charge_id, a.share_no, k.currency, a.effective_cost, a.charge_period_start, a.charge_period_end,
           c.resource_id, c.provider
    FROM allocation_rows a
    JOIN charge_kinds k USING (kind_id)
    JOIN charges c USING (charge_id)
    WHERE a.share_no > 0 AND a.rule = 'idle'
    UNION ALL
    SELECT r.charge_id, r.share_no, c.billing_currency, c.effective_cost, c.charge_period_start,
           c.charge_period_end, c.resource_id, c.provider
    FROM allocation_refs r
    JOIN charges c USING (charge_id)
    WHERE r.share_no > 0 AND r.tuple_id IN (SELECT tuple_id FROM allocation_tuples WHERE rule = 'idle')
),
idle AS (
    SELECT DISTINCT b.experiment_id, a.charge_id, a.share_no, a.currency, a.effective_cost,
           a.charge_period_start, a.charge_period_end
    FROM idle_allocations a
    JOIN bill_names b ON b.name = a.resource_id AND (b.provider IS NULL OR b.provider = a.provider)
    WHERE a.charge_period_end > a.charge_period_start
)
SELECT i.experiment_id, i.currency, sum(
    to_units(i.effective_cost)
    * (epoch_ms(least(i.charge_period_end, s.run_end)) - epoch_ms(greatest(i.charge_period_start, s.run_start)))
    // (epoch_ms(i.charge_period_end) - epoch_ms(i.charge_period_start))
) AS idle_units
FROM idle i JOIN span s ON s.experiment_id = i.experiment_id
WHERE i.charge_period_start < s.run_end AND i.charge_period_end > s.run_start
GROUP BY ALL
