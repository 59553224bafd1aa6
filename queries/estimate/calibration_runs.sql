-- What the estimator's own history says about utilisation: per finished run and phase, the estimator's
-- FLOPs next to the realized cloud compute cost (not an off-cloud ledger's, provider manual, nor a model
-- API's, spend llm_api in the provider table: they bought no GPU hours) and the price and peak the estimate
-- used, from which implied MFU = FLOPs / (cost / price x 3600 x peak), as reconcile computes it.
-- Grain: experiment x phase. Only succeeded runs of $method whose estimate was priced on GPU $gpu, in the
-- estimate's currency, and whose providers' bills reach the run's end (reconciled, not provisional).
-- Parameters: $method (sft, rl, opd, dpo), $gpu (canonical GPU type, e.g. H100).
-- Reads the allocations by day (the view `allocation_days`: the stored shares and the cells of the
-- charges placed whole), the same sums as the view `allocations` without joining every charge.
WITH estimated AS (
    SELECT e.experiment_id, e.ended_at, CAST(r.detail AS JSON) AS d
    FROM experiments e
    JOIN estimator_results r USING (experiment_id)
    WHERE e.status = 'succeeded' AND e.method = $method AND e.ended_at IS NOT NULL
),
facts AS (
    SELECT experiment_id, ended_at,
        d ->> '$.currency' AS currency,
        d ->> '$.assumptions.gpu_type.value' AS gpu,
        TRY_CAST(d ->> '$.assumptions.price_per_gpu_hour.value' AS DECIMAL(38, 12)) AS price,
        TRY_CAST(d ->> '$.assumptions.peak_tflops.value' AS DECIMAL(38, 12)) AS peak,
        unnest(CAST(d -> '$.phases' AS JSON[])) AS phase
    FROM estimated
),
flops AS (
    SELECT experiment_id, ended_at, currency, price, peak, phase ->> '$.phase' AS phase,
        phase ->> '$.flops' AS flops
    FROM facts
    WHERE gpu = $gpu AND price > 0 AND peak > 0
        AND phase ->> '$.category' = 'compute' AND phase ->> '$.flops' IS NOT NULL
),
realized AS (
    SELECT experiment_id, coalesce(phase, 'unknown') AS phase, currency, sum(effective_cost) AS cost
    FROM allocation_days
    WHERE cost_category = 'compute' AND provider <> 'manual' AND NOT usage_billed(provider)
        AND experiment_id IS NOT NULL
    GROUP BY ALL
),
complete AS (
    SELECT provider, max(charge_period_end) AS through
    FROM charges
    WHERE charge_category = 'Usage' AND charge_period_end IS NOT NULL AND provider <> 'manual'
    GROUP BY provider
),
provisional AS (
    SELECT DISTINCT a.experiment_id
    FROM allocation_days a
    JOIN estimated e USING (experiment_id)
    LEFT JOIN complete c ON c.provider = a.provider
    WHERE a.provider <> 'manual' AND (c.through IS NULL OR c.through < e.ended_at)
)
SELECT f.experiment_id, f.phase, f.flops, r.cost, f.price, f.peak
FROM flops f
JOIN realized r ON r.experiment_id = f.experiment_id AND r.phase = f.phase AND r.currency = f.currency
WHERE r.cost > 0 AND f.experiment_id NOT IN (SELECT experiment_id FROM provisional)
ORDER BY f.phase, f.experiment_id
