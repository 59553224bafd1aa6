-- FOCUS 1.3 Cost and Usage rows for one billing period (export/focus_shares): a charge with one share is
-- itself, without allocation columns; a charge split into several shares (an origin charge) becomes one
-- allocated charge per share, as FOCUS 1.3's data generator-calculated split cost allocation has it.
-- Grain: charge x share, plus the unused part of a commitment purchase (its own origin: it is split too).
-- Parameters: $period (YYYY-MM); $project_key, $phase_key, $method_key (the tag keys AllocatedTags writes:
-- the first key of each [labels] entry).
--
-- FOCUS_Spec specification/attributes/data_generator_calculated_split_cost_allocation_handling.md: an
-- allocated charge keeps the origin's dimensions and non-summable metrics, and the origin's Tags; its
-- summable metrics add up to the origin's. So ChargePeriodStart/End are the charge's own (a share's segment
-- of it shows only in the hours of AllocatedMethodDetails), money is the share's (allocations add up
-- exactly), and ConsumedQuantity / PricingQuantity are the origin's split by the AllocatedRatio in integer
-- units of 1e-12, the floor of each part and the units left over one each to the largest remainders (ties
-- by share number), so that they add up exactly too. The origin row itself is not written: its allocated
-- charges restate it, and the sum of BilledCost stays the invoice.
-- AllocatedRatio (allocatedmethoddetails.md: the allocated charge's part of the origin; the ratios of one
-- origin sum to 1) is the share's part of the origin's EffectiveCost, in absolute values (else BilledCost,
-- else ListCost, for an origin whose EffectiveCost is 0), in units of 1e-12 by the same largest-remainder
-- rule, so they sum to exactly 1; an origin whose every cost is 0 is split in equal ratios. The units of a
-- ratio are worked out in two steps of 1e6 so that share x 1e12 never leaves HUGEINT. The units of the split
-- charges' rows are export/focus_13_split's (a temporary table made just before, read here by charge, share
-- and part). Units become a number as a whole part (DECIMAL(25, 0): a quantity below 1e25) and a fraction
-- (DECIMAL(13, 0) x 1e-12), each sum and product inside 38 digits: Spark, which by default cuts the scale of
-- a wider result to 6 places (spark.sql.decimalOperations.allowPrecisionLoss), keeps all 12 (issue 34); the
-- sign is the units' (-1 x a DECIMAL(38, 12) is cut as well), and they are cast to HUGEINT so that Spark
-- divides them as exact units (its `div` is 64-bit). The CTEs here are named apart from focus_shares':
-- Spark's SQL lifts the macro's CTEs beside these, and refuses a name used twice.
-- AllocatedMethodId is `trainledger-` and the share's rule (`shared-spread` for a shared charge spread over
-- attributed cost); AllocatedResourceId / AllocatedResourceName the share's experiment, NULL where it has
-- none (idle, unattributed, a project's part without a run: the unallocated portion, allocatedresourceid.md);
-- AllocatedTags the share's project, phase and method under the configured keys, leaving out what the
-- charge's Tags already say (the label set of its tags gives the same value, or Tags has the key).
-- ServiceProviderName is the provider's FOCUS name (the deprecated ProviderName and PublisherName, still
-- required in 1.3, carry it too); HostProviderName the bill's own where it names one (a FOCUS 1.3 file's:
-- MongoDB Atlas on AWS), else the same, or "Not Applicable" for an off-cloud ledger row (hostprovidername.md:
-- a service deployed on no infrastructure). x_ExperimentId and x_AllocationRule are
-- written where AllocatedResourceId and AllocatedMethodId are not: on a charge that is not split.
-- ResourceName is the bill's (a GCP instance's name beside its id: the experiment log may name it so).
-- x_UsageType is the bill's usage type (an off-cloud ledger row's category), which a FOCUS reader's cost
-- categories read (trainledger's own: connectors/focus.py).
WITH quantities AS (
    -- a charge that is not split is its own origin's only row: its ratio is 1 and its quantities whole
    SELECT
        f.*,
        f.shares > 1 AS allocated,
        CASE WHEN f.shares > 1 THEN s.r_units ELSE CAST(1000000000000 AS HUGEINT) END AS r_units,
        -- units with the origin's sign (the split's are of its absolute value)
        CASE
            WHEN f.shares > 1 THEN CASE WHEN f.consumed_whole < 0 THEN -s.c_units ELSE s.c_units END
            ELSE to_units(f.consumed_whole)
        END AS c_units,
        CASE
            WHEN f.shares > 1 THEN CASE WHEN f.pricing_whole < 0 THEN -s.p_units ELSE s.p_units END
            ELSE to_units(f.pricing_whole)
        END AS p_units
    FROM focus_shares($period) f
    LEFT JOIN focus_13_split s ON s.charge_id = f.charge_id AND s.part = f.part AND s.share_no = f.share_no
),
described_13 AS (
    SELECT
        q.*,
        CAST(CAST(q.r_units AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12)) AS DECIMAL(38, 12))
            AS ratio,
        CAST(CAST(CAST(q.c_units AS HUGEINT) // 1000000000000 AS DECIMAL(25, 0))
             + CAST(q.c_units % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12))
             AS DECIMAL(38, 12)) AS consumed_share,
        CAST(CAST(CAST(q.p_units AS HUGEINT) // 1000000000000 AS DECIMAL(25, 0))
             + CAST(q.p_units % 1000000000000 AS DECIMAL(13, 0)) * CAST('0.000000000001' AS DECIMAL(13, 12))
             AS DECIMAL(38, 12)) AS pricing_share,
        'trainledger-' || CASE q."x_AllocationRule" WHEN 'shared' THEN 'shared-spread' ELSE q."x_AllocationRule" END
            AS method_id,
        nullif(CAST(to_json(map_from_entries(list_transform(list_filter(
            [{'k': $project_key, 'v': q."x_Project", 'known': ls.project},
             {'k': $phase_key, 'v': q."x_Phase", 'known': ls.phase},
             {'k': $method_key, 'v': q."x_Method", 'known': ls.method}],
            lambda t: t.v IS NOT NULL AND t.v IS DISTINCT FROM t.known
                      AND NOT list_contains(json_keys(coalesce(q."Tags", '{}')), t.k)
        ), lambda t: {'k': t.k, 'v': t.v}))) AS VARCHAR), '{}') AS allocated_tags
    FROM quantities q
    LEFT JOIN label_sets ls ON ls.tags = q."Tags"
)
SELECT
    CASE WHEN allocated THEN
        '{"Elements":[{"AllocatedRatio":' || CAST(ratio AS VARCHAR)
        || CASE WHEN method_id <> 'trainledger-shared-spread' AND share_hours IS NOT NULL
                THEN ',"UsageUnit":"Hours","UsageQuantity":' || CAST(share_hours AS VARCHAR) ELSE '' END
        || '}]}'
    END AS "AllocatedMethodDetails",
    CASE WHEN allocated THEN method_id END AS "AllocatedMethodId",
    CASE WHEN allocated THEN "x_ExperimentId" END AS "AllocatedResourceId",
    CASE WHEN allocated THEN "x_ExperimentId" END AS "AllocatedResourceName",
    CASE WHEN allocated THEN allocated_tags END AS "AllocatedTags",
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    origin_end AS "ChargePeriodEnd",
    origin_start AS "ChargePeriodStart",
    "CommitmentDiscountCategory",
    "CommitmentDiscountId",
    "CommitmentDiscountStatus",
    CASE WHEN "ConsumedQuantity" IS NOT NULL THEN consumed_share END AS "ConsumedQuantity",
    "ConsumedUnit",
    "ContractedCost",
    "EffectiveCost",
    coalesce(host_provider_name, CASE WHEN provider = 'manual' THEN 'Not Applicable' ELSE "ProviderName" END)
        AS "HostProviderName",
    "InvoiceId",
    "InvoiceIssuerName",
    "ListCost",
    "PricingCategory",
    CASE WHEN "PricingQuantity" IS NOT NULL THEN pricing_share END AS "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "RegionId",
    "ResourceId",
    CASE WHEN "ResourceId" IS NOT NULL THEN resource_name END AS "ResourceName",
    "ResourceType",
    "ServiceCategory",
    "ServiceName",
    "ProviderName" AS "ServiceProviderName",
    "ServiceSubcategory",
    "SubAccountId",
    "Tags",
    "x_Project",
    "x_Phase",
    "x_Method",
    CASE WHEN NOT allocated THEN "x_ExperimentId" END AS "x_ExperimentId",
    CASE WHEN NOT allocated THEN "x_AllocationRule" END AS "x_AllocationRule",
    "x_AllocationReason",
    "x_CostCategory",
    "x_ChargeId",
    usage_type AS "x_UsageType"
FROM described_13
ORDER BY origin_start, charge_id, share_no, part
