-- What each failed, aborted or cancelled experiment cost: its realized EffectiveCost per currency, every
-- rule included (a failed run's waste). Grain: experiment x currency.
-- Parameters: $ids (list of experiment ids), $statuses (the failed statuses, waste.FAILED_STATUSES).
-- Reads the allocations by day (the view `allocation_days`: the stored shares and the cells of the
-- charges placed whole), the same sums as the view `allocations` without joining every charge.
SELECT experiment_id, currency, sum(effective_cost) AS cost
FROM allocation_days
WHERE list_contains($ids, experiment_id)
  AND experiment_id IN (SELECT experiment_id FROM experiments WHERE list_contains($statuses, status))
GROUP BY ALL
