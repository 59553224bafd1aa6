-- The known experiments with their estimated and realized cost, newest first (`trainledger experiments`).
-- Grain: experiment. Money is in one currency per experiment, chosen as `reconcile` does: the estimate's
-- (the first in order when there are several), else the first realized one; realized is EffectiveCost
-- of the experiment's allocations in that currency, estimated NULL when nothing was estimated in it.
-- Parameters: $project (NULL: every project), $since (a DATE; NULL: whenever they started).
-- Reads the allocations by day (the view `allocation_days`: the stored shares and the cells of the
-- charges placed whole), the same sums as the view `allocations` without joining every charge.
WITH estimated AS (
    SELECT experiment_id, currency, sum(amount) AS amount FROM estimates GROUP BY ALL
),
realized AS (
    SELECT experiment_id, currency, sum(effective_cost) AS amount
    FROM allocation_days
    WHERE experiment_id IS NOT NULL
    GROUP BY ALL
),
chosen AS (
    SELECT e.experiment_id,
           coalesce(
               (SELECT min(x.currency) FROM estimated x WHERE x.experiment_id = e.experiment_id),
               (SELECT min(r.currency) FROM realized r WHERE r.experiment_id = e.experiment_id),
               'USD'
           ) AS currency
    FROM experiments e
)
SELECT e.experiment_id, e.project, e.method, e.status, e.started_at, e.ended_at, c.currency,
       est.amount AS estimated, coalesce(rea.amount, 0) AS realized
FROM experiments e
JOIN chosen c ON c.experiment_id = e.experiment_id
LEFT JOIN estimated est ON est.experiment_id = e.experiment_id AND est.currency = c.currency
LEFT JOIN realized rea ON rea.experiment_id = e.experiment_id AND rea.currency = c.currency
WHERE ($project IS NULL OR e.project = $project)
  AND ($since IS NULL OR e.started_at >= $since)
ORDER BY e.started_at DESC NULLS LAST, e.experiment_id
