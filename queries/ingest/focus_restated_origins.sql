-- FOCUS 1.3 origin charges that their allocated charges restate (data generator-calculated split cost
-- allocation), so that each is counted once: through its allocated charges, which name who used it.
-- Grain: one row per restated origin row (filename, file_row_number), with its BilledCost. Parameters: none.
--
-- FOCUS_Spec (commit daf36cc5baeb3531dcee9caefda3762fe658a076),
-- specification/attributes/data_generator_calculated_split_cost_allocation_handling.md: a data generator
-- takes an origin charge and splits it into allocated charges that "MUST sum up to the origin charge
-- record for all aggregatable metric columns", whose dimensions "MUST match the values of the origin
-- charge record"; the unallocated remainder MAY be an allocated charge of its own. allocatedmethodid.md:
-- AllocatedMethodId is not null exactly when a charge "is related to" such a split; allocatedresourceid.md:
-- AllocatedResourceId is null on the unallocated portion, set on each allocated portion;
-- allocatedmethoddetails.md: the portions' AllocatedRatio sum to 1 per origin. Whether the origin row stays
-- in the dataset is left open (FOCUS_Spec issues #2515, #2578): generators leave it out (the sum of
-- BilledCost is then the invoice), keep it with its costs zeroed (the same), or keep it whole beside its
-- allocated charges (counted twice by a plain sum). This finds the last: a row of the split's resource,
-- account and charge period that is no portion itself (AllocatedResourceId and AllocatedMethodDetails
-- null; AllocatedMethodId either way, both readings are in use) and whose BilledCost and EffectiveCost
-- equal its allocated charges' sums (alone, or with the other such rows of the same key).
CREATE OR REPLACE TEMP TABLE focus_restated AS
WITH keyed AS (
    SELECT
        filename,
        file_row_number,
        {'account': CAST(BillingAccountId AS VARCHAR), 'sub_account': CAST(SubAccountId AS VARCHAR),
         'period': CAST(BillingPeriodStart AS VARCHAR), 'start': CAST(ChargePeriodStart AS VARCHAR),
         'end': CAST(ChargePeriodEnd AS VARCHAR), 'category': CAST(ChargeCategory AS VARCHAR),
         'class': CAST(ChargeClass AS VARCHAR), 'resource': CAST(ResourceId AS VARCHAR),
         'sku': CAST(SkuId AS VARCHAR), 'currency': CAST(BillingCurrency AS VARCHAR)} AS origin_key,
        CAST(CAST(BilledCost AS VARCHAR) AS DECIMAL(38, 12)) AS billed,
        CAST(coalesce(CAST(EffectiveCost AS VARCHAR), CAST(BilledCost AS VARCHAR)) AS DECIMAL(38, 12)) AS effective,
        AllocatedMethodId IS NOT NULL
            AND (AllocatedResourceId IS NOT NULL OR AllocatedMethodDetails IS NOT NULL) AS portion
    FROM focus_raw_full
    WHERE ResourceId IS NOT NULL
      AND (AllocatedMethodId IS NOT NULL OR (AllocatedResourceId IS NULL AND AllocatedMethodDetails IS NULL))
),
splits AS (
    SELECT origin_key, sum(billed) AS billed, sum(effective) AS effective
    FROM keyed
    WHERE portion
    GROUP BY origin_key
),
whole AS (
    SELECT k.filename, k.file_row_number, k.origin_key, k.billed, k.effective,
           sum(k.billed) OVER (PARTITION BY k.origin_key) AS key_billed,
           sum(k.effective) OVER (PARTITION BY k.origin_key) AS key_effective
    FROM keyed k
    SEMI JOIN splits s ON s.origin_key IS NOT DISTINCT FROM k.origin_key
    WHERE NOT k.portion
)
SELECT w.filename, w.file_row_number, w.billed
FROM whole w
JOIN splits s ON s.origin_key IS NOT DISTINCT FROM w.origin_key
WHERE (w.billed = s.billed AND w.effective = s.effective)
   OR (w.key_billed = s.billed AND w.key_effective = s.effective)
